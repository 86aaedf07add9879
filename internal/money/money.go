// Package money is the exact amount every workload's money is: an int64 count of cents, with
// its decimal text form. It stands apart from StockTrader (whose trade.Money it is) so that
// WSTest's orders carry the same exact amounts without importing the system it is not.
package money

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Money is an exact amount in cents. Money is never a float: balances are sums of many orders and
// an audit must find them equal to the cent.
type Money int64

// Cents builds Money from whole cents.
func Cents(c int64) Money { return Money(c) }

// String formats as a plain decimal with two places, e.g. "-1234.05".
func (m Money) String() string {
	sign := ""
	v := int64(m)
	if v < 0 {
		sign = "-"
		if v == math.MinInt64 {
			return "-92233720368547758.08"
		}
		v = -v
	}
	return fmt.Sprintf("%s%d.%02d", sign, v/100, v%100)
}

// MarshalText renders the decimal form, so JSON and XML carry "12.50", not a float.
func (m Money) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText parses the decimal form.
func (m *Money) UnmarshalText(b []byte) error {
	v, err := Parse(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// maxMoney bounds parsed amounts far below overflow of later arithmetic (price × quantity).
const maxMoney = Money(1_000_000_000_000_00) // one trillion

// Parse parses "123", "123.4", "123.45", "-0.5" or "$1,234.50" exactly. More than two
// decimal places is an error, never a silent rounding.
func Parse(s string) (Money, error) {
	orig := s
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "$")
	s = strings.ReplaceAll(s, ",", "")
	neg := false
	if strings.HasPrefix(s, "-") {
		neg = true
		s = s[1:]
	} else if strings.HasPrefix(s, "+") {
		s = s[1:]
	}
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" && (!hasDot || frac == "") {
		return 0, fmt.Errorf("not an amount: %q", orig)
	}
	if len(frac) > 2 {
		return 0, fmt.Errorf("amount %q has more than two decimal places", orig)
	}
	for _, r := range whole + frac {
		if r < '0' || r > '9' {
			return 0, fmt.Errorf("not an amount: %q", orig)
		}
	}
	if len(whole) > 13 {
		return 0, fmt.Errorf("amount %q is too large", orig)
	}
	var w int64
	if whole != "" {
		var err error
		if w, err = strconv.ParseInt(whole, 10, 64); err != nil {
			return 0, fmt.Errorf("not an amount: %q", orig)
		}
	}
	for len(frac) < 2 {
		frac += "0"
	}
	f, _ := strconv.ParseInt(frac, 10, 64)
	v := Money(w*100 + f)
	if v > maxMoney {
		return 0, fmt.Errorf("amount %q is too large", orig)
	}
	if neg {
		v = -v
	}
	return v, nil
}

// Times multiplies by a whole quantity (shares).
func (m Money) Times(q int64) Money { return m * Money(q) }

// ScalePercent multiplies by pct/100 rounding half away from zero to the cent, e.g. a price
// moved by a factor of 1.07 is ScalePercent(107).
func (m Money) ScalePercent(pct int64) Money {
	p := int64(m) * pct
	if p >= 0 {
		return Money((p + 50) / 100)
	}
	return Money(-((-p + 50) / 100))
}
