package grpcapi

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/tradebench/tradebench/trade"
)

// ErrorDomain names the ErrorInfo domain that marks a status as a trade domain error; the
// ErrorInfo reason is the trade.Code.
const ErrorDomain = "trade.tradebench"

// StatusCode maps a domain code to the gRPC status code it travels as.
func StatusCode(c trade.Code) codes.Code {
	switch c {
	case trade.CodeInvalid:
		return codes.InvalidArgument
	case trade.CodeNotFound:
		return codes.NotFound
	case trade.CodeUnauthorized:
		return codes.Unauthenticated
	case trade.CodeForbidden:
		return codes.PermissionDenied
	case trade.CodeConflict:
		return codes.AlreadyExists
	case trade.CodeTooManyRequests:
		return codes.ResourceExhausted
	}
	return codes.FailedPrecondition // a domain code this build does not know yet
}

// toStatus turns a service error into a gRPC status error: domain errors keep their code in an
// ErrorInfo detail, context errors keep their meaning, anything else is Internal.
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	if de := trade.AsError(err); de != nil {
		st := status.New(StatusCode(de.Code), de.Message)
		details := []protoadapt.MessageV1{&errdetails.ErrorInfo{Reason: string(de.Code), Domain: ErrorDomain}}
		if de.RetryAfter > 0 {
			details = append(details, &errdetails.RetryInfo{RetryDelay: durationpb.New(de.RetryAfter)})
		}
		if withInfo, derr := st.WithDetails(details...); derr == nil {
			st = withInfo
		}
		return st.Err()
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, err.Error())
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, err.Error())
	}
	return status.Error(codes.Internal, "trade service: "+err.Error())
}

// fromStatus turns an RPC error back into the domain error it carries, or into a transport
// error that wraps the context error when the call timed out or was cancelled.
func fromStatus(method string, err error) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return fmt.Errorf("grpc %s: %w", method, err)
	}
	var de *trade.Error
	var retry time.Duration
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.ErrorInfo:
			if d.GetDomain() == ErrorDomain {
				de = &trade.Error{Code: trade.Code(d.GetReason()), Message: st.Message()}
			}
		case *errdetails.RetryInfo:
			retry = d.GetRetryDelay().AsDuration()
		}
	}
	if de != nil {
		de.RetryAfter = retry
		return de
	}
	switch st.Code() {
	case codes.DeadlineExceeded:
		return fmt.Errorf("grpc %s: %s: %w", method, st.Message(), context.DeadlineExceeded)
	case codes.Canceled:
		return fmt.Errorf("grpc %s: %s: %w", method, st.Message(), context.Canceled)
	}
	return fmt.Errorf("grpc %s: %s: %s", method, st.Code(), st.Message())
}
