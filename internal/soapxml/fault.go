package soapxml

import (
	"errors"
	"fmt"
)

// Fault codes (SOAP 1.1 section 4.4.1), without the envelope prefix they carry on the wire.
const (
	CodeClient          = "Client"
	CodeServer          = "Server"
	CodeVersionMismatch = "VersionMismatch"
	CodeMustUnderstand  = "MustUnderstand"
)

// Fault is a SOAP 1.1 fault: what a server answers a request with when it cannot serve it, and
// what a client reads back. The reader's errors about a document are Faults (Client) or
// *SyntaxError.
type Fault struct {
	Code   string // CodeClient...
	String string // faultstring
}

func (f *Fault) Error() string { return "soap:" + f.Code + ": " + f.String }

// ClientFault is a Client fault: the sender got the message wrong.
func ClientFault(format string, args ...any) *Fault {
	return &Fault{Code: CodeClient, String: fmt.Sprintf(format, args...)}
}

// AsFault classifies an error met while reading a document: a *Fault as it is, a *SyntaxError
// as a Client fault; ok is false for anything else (the reader's caller decides).
func AsFault(err error) (f *Fault, ok bool) {
	var se *SyntaxError
	switch {
	case errors.As(err, &f):
		return f, true
	case errors.As(err, &se):
		return &Fault{Code: CodeClient, String: se.Error()}, true
	}
	return nil, false
}

// AppendFault appends a whole fault envelope. detail, if not nil, writes the content of the
// <detail> element.
func AppendFault(b []byte, f *Fault, detail func([]byte) []byte) []byte {
	b = append(b, EnvStart...)
	b = append(b, "<soap:Fault><faultcode>soap:"...)
	b = append(b, f.Code...)
	b = append(b, "</faultcode>"...)
	b = AppendString(b, "faultstring", f.String)
	if detail != nil {
		b = append(b, "<detail>"...)
		b = detail(b)
		b = append(b, "</detail>"...)
	}
	b = append(b, "</soap:Fault>"...)
	return append(b, EnvEnd...)
}
