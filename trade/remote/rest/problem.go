package rest

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/tradebench/tradebench/trade"
)

// ProblemContentType is RFC 9457's media type for error bodies.
const ProblemContentType = "application/problem+json"

// Transport-level problem codes: a bad request that never reached the trade service. Domain
// errors use the trade.Code values instead.
const (
	CodeMalformed       = "malformed_request"
	CodeUnknownResource = "unknown_resource"
	CodeBadMethod       = "method_not_allowed"
	CodeTooLarge        = "payload_too_large"
	CodeMediaType       = "unsupported_media_type"
	CodeInternal        = "internal"
	CodeUnavailable     = "unavailable"
	// CodeServiceToken refuses a caller without the services host's token (401). It is not
	// a domain code: the caller's configuration is wrong, not the user's password.
	CodeServiceToken = "service_token"
)

// Problem is an RFC 9457 problem detail with the domain code as an extension member.
type Problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail,omitempty"`
	// Code is a trade.Code for a domain error, or one of the Code* transport codes.
	Code string `json:"code"`
}

// ProblemTypeBase prefixes the code to make the problem type URI.
const ProblemTypeBase = "urn:tradebench:problem:"

// domainCodes are the codes a client turns back into *trade.Error.
var domainCodes = map[trade.Code]bool{
	trade.CodeInvalid:           true,
	trade.CodeNotFound:          true,
	trade.CodeUnauthorized:      true,
	trade.CodeForbidden:         true,
	trade.CodeConflict:          true,
	trade.CodeInsufficientFunds: true,
	trade.CodeTooManyRequests:   true,
}

// HTTPStatus maps a domain code to the HTTP status it travels as.
func HTTPStatus(c trade.Code) int {
	switch c {
	case trade.CodeInvalid:
		return http.StatusBadRequest
	case trade.CodeNotFound:
		return http.StatusNotFound
	case trade.CodeUnauthorized:
		return http.StatusUnauthorized
	case trade.CodeForbidden:
		return http.StatusForbidden
	case trade.CodeConflict:
		return http.StatusConflict
	case trade.CodeTooManyRequests:
		return http.StatusTooManyRequests
	}
	return http.StatusUnprocessableEntity
}

// WriteProblem answers a problem with a transport-level code (one of the Code* constants),
// for middleware in front of the REST handler.
func WriteProblem(w http.ResponseWriter, status int, code, detail string) {
	writeProblem(w, status, code, detail)
}

func writeProblem(w http.ResponseWriter, status int, code, detail string) {
	b, _ := json.Marshal(Problem{
		Type:   ProblemTypeBase + code,
		Title:  http.StatusText(status),
		Status: status,
		Detail: detail,
		Code:   code,
	})
	h := w.Header()
	h.Set("Content-Type", ProblemContentType)
	h.Set("Content-Length", strconv.Itoa(len(b)))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(b)
}
