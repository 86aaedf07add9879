package trade

import (
	"math/rand/v2"
	"strings"
	"unicode/utf8"
)

// OrderFee is the Trade 6.1 commission for every buy and sell.
const OrderFee = Money(2495)

// Limits on user input: the web tier and every transport enforce them through Validate*.
const (
	MaxQuantity   = 1_000_000
	MaxFieldLen   = 128
	MaxSymbols    = 100
	MaxSymbolLen  = 32
	MaxUserIDLen  = 64
	MaxOpenAmount = Money(1_000_000_000_00) // a billion
)

// PriceChangePercent draws the factor a completed order moves its quote's price by, as
// percent in [90, 110] (Trade 6.1's getRandomPriceChangeFactor: two decimal places in [0.9, 1.1]).
func PriceChangePercent(r *rand.Rand) int64 { return 90 + r.Int64N(21) }

// NewPrice applies a price change with Trade 6.1's guards: a price at or below one cent
// recovers ×600 (penny stock), a price above 400 splits (×0.5).
func NewPrice(old Money, pct int64) Money {
	p := old.ScalePercent(pct)
	if p <= 1 {
		p = p * 600
		if p <= 0 {
			p = 600
		}
	}
	if p > 40000 {
		p = p.ScalePercent(50)
	}
	return p
}

// ValidateQuantity rejects non-positive and absurd quantities. sell passes allowZero (0 = all).
func ValidateQuantity(q int64, allowZero bool) error {
	if q == 0 && allowZero {
		return nil
	}
	if q <= 0 {
		return Errorf(CodeInvalid, "quantity must be a positive whole number of shares, got %d", q)
	}
	if q > MaxQuantity {
		return Errorf(CodeInvalid, "quantity %d is more than the maximum of %d shares per order", q, MaxQuantity)
	}
	return nil
}

// ValidateSymbol rejects empty and over-long symbols (unknown ones are the store's NotFound).
func ValidateSymbol(s string) error {
	if s == "" {
		return Errorf(CodeInvalid, "symbol is required")
	}
	if len(s) > MaxSymbolLen || !utf8.ValidString(s) {
		return Errorf(CodeInvalid, "symbol is too long or not valid text")
	}
	return nil
}

// ValidateField rejects over-long or invalid text in a named profile field.
func ValidateField(name, v string, required bool) error {
	if required && strings.TrimSpace(v) == "" {
		return Errorf(CodeInvalid, "%s is required", name)
	}
	if len(v) > MaxFieldLen {
		return Errorf(CodeInvalid, "%s is longer than %d characters", name, MaxFieldLen)
	}
	if !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
		return Errorf(CodeInvalid, "%s is not valid text", name)
	}
	return nil
}

// ValidateRegister checks a registration before it reaches a store.
func ValidateRegister(r RegisterRequest) error {
	if err := ValidateField("user id", r.UserID, true); err != nil {
		return err
	}
	if len(r.UserID) > MaxUserIDLen {
		return Errorf(CodeInvalid, "user id is longer than %d characters", MaxUserIDLen)
	}
	if err := ValidateField("password", r.Password, true); err != nil {
		return err
	}
	for _, f := range [][2]string{{"full name", r.FullName}, {"address", r.Address}, {"email", r.Email}, {"credit card", r.CreditCard}} {
		if err := ValidateField(f[0], f[1], false); err != nil {
			return err
		}
	}
	if err := ValidateEmail(r.Email); err != nil {
		return err
	}
	if r.OpenBalance < 0 || r.OpenBalance > MaxOpenAmount {
		return Errorf(CodeInvalid, "opening balance must be between 0 and %s", MaxOpenAmount)
	}
	return nil
}
