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
