package trade

import (
	"errors"
	"fmt"
	"time"
)

// Code classifies a domain error so every transport can carry it and give it back as the same
// error: HTTP status, SOAP fault code and gRPC status are all derived from it.
type Code string

const (
	CodeInvalid      Code = "invalid_argument"  // malformed or out-of-range input
	CodeNotFound     Code = "not_found"         // unknown user, symbol, holding, order
	CodeUnauthorized Code = "unauthenticated"   // wrong user id or password
	CodeForbidden    Code = "permission_denied" // another user's holding
	CodeConflict     Code = "already_exists"    // duplicate user id on register
	// CodeInsufficientFunds refuses a trade that would leave the balance negative: a buy that
	// costs more than the balance, a sell whose proceeds are below the fee by more than it.
	CodeInsufficientFunds Code = "insufficient_funds"
	// CodeTooManyRequests refuses a login after too many wrong passwords for the account
	// (Error.RetryAfter says for how long).
	CodeTooManyRequests Code = "resource_exhausted"
)

// LoginWindow is the period wrong passwords are counted over for login throttling.
const LoginWindow = time.Minute

// LoginRefused is the one message for an unknown user and a wrong password, in every
// transport: telling them apart would let anyone list the user ids.
const LoginRefused = "wrong user id or password"

// Error is a domain error a user can cause. It is never a system fault.
type Error struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
	// RetryAfter, for CodeTooManyRequests, is when to try again (whole seconds; 0 = unknown).
	RetryAfter time.Duration `json:"-"`
}

func (e *Error) Error() string { return e.Message }

// Is matches on Code, so errors.Is(err, ErrNotFound) works across transports.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && (t.Message == "" || t.Message == e.Message)
}

// Errorf builds a domain error of a code.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Sentinels for errors.Is; they match any *Error of the same code.
var (
	ErrInvalid           = &Error{Code: CodeInvalid}
	ErrNotFound          = &Error{Code: CodeNotFound}
	ErrUnauthorized      = &Error{Code: CodeUnauthorized}
	ErrForbidden         = &Error{Code: CodeForbidden}
	ErrConflict          = &Error{Code: CodeConflict}
	ErrInsufficientFunds = &Error{Code: CodeInsufficientFunds}
	ErrTooManyRequests   = &Error{Code: CodeTooManyRequests}
)

// ErrUnavailable marks a system fault in reaching the business services: a remote services
// host that is down, too slow or answers garbage. It is not a domain error (AsError is nil);
// the pages answer it with 503 and a message that says so.
var ErrUnavailable = errors.New("the business services are unavailable")

// AsError returns the domain error in err's chain, or nil for a system fault.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}
