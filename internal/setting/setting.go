// Package setting is the error a component returns for one bad value in its configuration.
//
// A component is configured from several front ends (command-line flags, the old kits' INI
// files, a config page), each with its own name for the same setting, so the component names the
// Config field and says what is wrong; each front end maps the field to its own name (the
// command line to the flag that sets it).
package setting

import (
	"errors"
	"fmt"
)

// Error is a bad value of one configuration field.
type Error struct {
	Field string // the Config field, e.g. "MarketSummaryTTL"
	Err   error  // what is wrong with it, in words that do not repeat the field's name
}

func (e *Error) Error() string { return e.Field + ": " + e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error for field with a formatted message.
func Errorf(field, format string, args ...any) error {
	return &Error{Field: field, Err: fmt.Errorf(format, args...)}
}

// In names err's field inside the Config field parent that holds a component's own
// configuration: In("Web", an Error of "SessionTTL") is an Error of "Web.SessionTTL". Other
// errors, and nil, are returned unchanged.
func In(parent string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return &Error{Field: parent + "." + e.Field, Err: e.Err}
	}
	return err
}
