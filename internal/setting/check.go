package setting

import "time"

// The checks most Configs repeat field after field, written once: a Validate lists its fields'
// checks in order and returns the first that fails (First), each naming its field.

// NotNegative is an *Error for field when v is below zero ("must not be negative, got v"), nil
// otherwise: the check of a size, count or duration whose zero means "none" or "the default".
func NotNegative[T ~int | ~int64 | ~float64](field string, v T) error {
	if v < 0 {
		if d, ok := any(v).(time.Duration); ok {
			return Errorf(field, "must not be negative, got %v", d)
		}
		return Errorf(field, "must not be negative, got %v", v)
	}
	return nil
}

// First returns the first of errs that is not nil (nil when all are): a Config's checks, one a
// line, in the order a user should hear of them.
func First(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Fraction is an *Error for field when v is not a fraction between 0 and 1 inclusive (NaN
// included), nil otherwise: the check of a rate or a share of the machine.
func Fraction(field string, v float64) error {
	if !IsFraction(v) {
		return Errorf(field, "must be a fraction between 0 and 1 (0%% and 100%%), got %g", v)
	}
	return nil
}

// IsFraction says whether v is a fraction between 0 and 1 inclusive (NaN is not).
func IsFraction(v float64) bool { return v >= 0 && v <= 1 }
