package xmlmark

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Decimal is an exact decimal number: Unscaled × 10^-Scale. Invoice amounts stay exact through
// every modification (a 10% raise of 12.35 is 13.585, not 13.584999…), so the benchmark never
// touches floating point.
type Decimal struct {
	Unscaled int64
	Scale    uint8
}

// maxScale bounds the number of decimal places (int64 holds 18 digits safely).
const maxScale = 18

var errDecimalRange = errors.New("amount out of range")

// ParseDecimal parses a plain decimal such as "12.34", "-0.5" or "7". It accepts no exponent,
// no grouping and no currency sign: invoice amounts are plain XML Schema decimals.
func ParseDecimal(s string) (Decimal, error) {
	return parseDecimalBytes([]byte(s))
}

func parseDecimalBytes(b []byte) (Decimal, error) {
	// trim XML whitespace: pretty-printed text may surround the number
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	orig := b
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	var d Decimal
	digits, dot := 0, false
	for _, c := range b {
		switch {
		case c == '.' && !dot:
			dot = true
		case c >= '0' && c <= '9':
			if d.Unscaled > (math.MaxInt64-9)/10 {
				return Decimal{}, fmt.Errorf("amount %q: %w", orig, errDecimalRange)
			}
			d.Unscaled = d.Unscaled*10 + int64(c-'0')
			digits++
			if dot {
				if d.Scale == maxScale {
					return Decimal{}, fmt.Errorf("amount %q has too many decimal places", orig)
				}
				d.Scale++
			}
		default:
			return Decimal{}, fmt.Errorf("not a decimal amount: %q", orig)
		}
	}
	if digits == 0 {
		return Decimal{}, fmt.Errorf("not a decimal amount: %q", orig)
	}
	if neg {
		d.Unscaled = -d.Unscaled
	}
	return d, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// RaiseTenPercent returns d × 1.1 exactly (one more decimal place, trailing zeros trimmed back to
// d's own scale).
func (d Decimal) RaiseTenPercent() (Decimal, error) {
	if d.Scale >= maxScale || d.Unscaled > math.MaxInt64/11 || d.Unscaled < math.MinInt64/11 {
		return Decimal{}, fmt.Errorf("raising %s by 10%%: %w", d, errDecimalRange)
	}
	r := Decimal{Unscaled: d.Unscaled * 11, Scale: d.Scale + 1}
	return r.trim(d.Scale), nil
}

// trim drops trailing zero decimals while the scale is above min.
func (d Decimal) trim(min uint8) Decimal {
	for d.Scale > min && d.Unscaled%10 == 0 {
		d.Unscaled /= 10
		d.Scale--
	}
	return d
}

// rescale returns d with the given (larger or equal) scale.
func (d Decimal) rescale(s uint8) (Decimal, error) {
	for d.Scale < s {
		if d.Unscaled > math.MaxInt64/10 || d.Unscaled < math.MinInt64/10 {
			return Decimal{}, errDecimalRange
		}
		d.Unscaled *= 10
		d.Scale++
	}
	return d, nil
}

// Add returns d + e exactly.
func (d Decimal) Add(e Decimal) (Decimal, error) {
	s := max(d.Scale, e.Scale)
	a, err := d.rescale(s)
	if err != nil {
		return Decimal{}, err
	}
	b, err := e.rescale(s)
	if err != nil {
		return Decimal{}, err
	}
	sum := a.Unscaled + b.Unscaled
	if (b.Unscaled > 0 && sum < a.Unscaled) || (b.Unscaled < 0 && sum > a.Unscaled) {
		return Decimal{}, errDecimalRange
	}
	return Decimal{Unscaled: sum, Scale: s}, nil
}

// Cmp compares d and e by value: -1, 0 or +1 (values that cannot be aligned compare by scale-free
// digits, which never happens for invoice amounts).
func (d Decimal) Cmp(e Decimal) int {
	s := max(d.Scale, e.Scale)
	a, err1 := d.rescale(s)
	b, err2 := e.rescale(s)
	if err1 != nil || err2 != nil {
		return 0
	}
	switch {
	case a.Unscaled < b.Unscaled:
		return -1
	case a.Unscaled > b.Unscaled:
		return 1
	}
	return 0
}

// String formats d with exactly Scale decimal places.
func (d Decimal) String() string {
	return string(d.AppendTo(nil))
}

// AppendTo appends d's text to b.
func (d Decimal) AppendTo(b []byte) []byte {
	u := d.Unscaled
	if u < 0 {
		b = append(b, '-')
	}
	var digits []byte
	if u == math.MinInt64 {
		digits = []byte("9223372036854775808")
	} else {
		if u < 0 {
			u = -u
		}
		digits = strconv.AppendInt(make([]byte, 0, 20), u, 10)
	}
	s := int(d.Scale)
	if s == 0 {
		return append(b, digits...)
	}
	for len(digits) <= s {
		digits = append([]byte{'0'}, digits...)
	}
	b = append(b, digits[:len(digits)-s]...)
	b = append(b, '.')
	return append(b, digits[len(digits)-s:]...)
}
