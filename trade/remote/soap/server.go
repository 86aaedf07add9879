// Package soap serves trade.Service as a SOAP 1.1 document/literal (wrapped) web service over
// HTTP, with its WSDL at ?wsdl, and provides a client that implements trade.Service over it.
// The envelopes are read and written by internal/soapxml (shared with WSTest): a streaming
// tokenizer and append-based serialization, no reflection on the hot path, bounded decoding of
// hostile input.
//
// Money crosses as an exact xs:decimal with two places ("1234.50"); times as xs:dateTime, absent
// when not set. A domain error is a soap:Client fault whose detail holds
// <TradeFault xmlns="urn:tradebench:trade:v1"><code>not_found</code><message>…</message></TradeFault>.
package soap

import (
	"context"
	"errors"
	"log/slog"
	"mime"
	"net/http"
	"runtime/debug"
	"strconv"

	"github.com/tradebench/tradebench/internal/soapxml"
	"github.com/tradebench/tradebench/trade"
)

// Path is where the services host serves the SOAP endpoint.
const Path = "/soap/trade"

// DefaultMaxBodyBytes bounds a request envelope; the largest legitimate one (100 symbols) is a
// few kilobytes.
const DefaultMaxBodyBytes = 256 << 10

// HandlerOptions configures NewHandler.
type HandlerOptions struct {
	// Processor serves completeOrder; nil uses the service itself when it implements
	// trade.OrderProcessor, else completeOrder is a Server fault.
	Processor trade.OrderProcessor
	// MaxBodyBytes bounds a request body (0 = DefaultMaxBodyBytes).
	MaxBodyBytes int64
	// Logger receives system faults and recovered panics (nil = slog.Default()).
	Logger *slog.Logger
}

// Handler is the SOAP endpoint: POST an envelope, GET ?wsdl for the WSDL.
type Handler struct {
	svc  trade.Service
	proc trade.OrderProcessor
	max  int64
	log  *slog.Logger
}

// NewHandler returns the SOAP endpoint for svc.
func NewHandler(svc trade.Service, opts HandlerOptions) *Handler {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Processor == nil {
		opts.Processor, _ = svc.(trade.OrderProcessor)
	}
	return &Handler{svc: svc, proc: opts.Processor, max: opts.MaxBodyBytes, log: opts.Logger}
}

var errNoProcessor = errors.New("this services host has no order processor")

// Fault codes (SOAP 1.1 section 4.4.1).
const (
	FaultClient          = soapxml.CodeClient
	FaultServer          = soapxml.CodeServer
	FaultVersionMismatch = soapxml.CodeVersionMismatch
	FaultMustUnderstand  = soapxml.CodeMustUnderstand
)

// faultDetailFields is the TradeFault detail element's content.
var faultDetailFields = []field{{Name: "code", XSD: "xs:string"}, {Name: "message", XSD: "xs:string"}}

// soapFault is a fault the server answers with: the SOAP fault, the domain error its detail
// carries, and the HTTP status.
type soapFault struct {
	soapxml.Fault
	detail *trade.Error
	status int // HTTP status; 500 as WS-I Basic Profile requires unless a transport problem
}

func newFault(code, msg string, status int) *soapFault {
	return &soapFault{Fault: soapxml.Fault{Code: code, String: msg}, status: status}
}

// The envelope's head and tail, for tests and benchmarks that write whole messages.
const (
	envStart = soapxml.EnvStart
	envEnd   = soapxml.EnvEnd
)

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			h.log.Error("soap: panic in handler", "panic", p, "stack", string(debug.Stack()))
			h.writeFault(w, newFault(FaultServer, "internal error", http.StatusInternalServerError))
		}
	}()
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		if soapxml.IsWSDLQuery(r.URL.RawQuery) {
			wsdl.Serve(w, r)
			return
		}
		w.Header().Set("Allow", "POST, GET")
		http.Error(w, "POST SOAP 1.1 envelopes here (Content-Type: text/xml); the WSDL is at "+r.URL.Path+"?wsdl", http.StatusMethodNotAllowed)
		return
	case http.MethodPost:
	default:
		w.Header().Set("Allow", "POST, GET")
		h.writeFault(w, newFault(FaultClient, "use POST with a SOAP 1.1 envelope", http.StatusMethodNotAllowed))
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		switch {
		case err == nil && (mt == "text/xml" || mt == "application/xml"):
		case err == nil && mt == "application/soap+xml":
			h.writeFault(w, newFault(FaultVersionMismatch, "this endpoint speaks SOAP 1.1 (text/xml), not SOAP 1.2", http.StatusUnsupportedMediaType))
			return
		default:
			h.writeFault(w, newFault(FaultClient, "Content-Type must be text/xml", http.StatusUnsupportedMediaType))
			return
		}
	}
	bp := soapxml.GetBuf()
	defer soapxml.PutBuf(bp)
	// MaxBytesReader also has the server close the connection after an oversized body.
	body, err := soapxml.ReadBody(*bp, http.MaxBytesReader(w, r.Body, h.max), r.ContentLength, h.max)
	*bp = body
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) || errors.Is(err, soapxml.ErrTooLarge) {
			h.writeFault(w, newFault(FaultClient, "the request is larger than "+strconv.FormatInt(h.max, 10)+" bytes", http.StatusRequestEntityTooLarge))
			return
		}
		h.writeFault(w, newFault(FaultClient, "reading the request: "+err.Error(), http.StatusBadRequest))
		return
	}
	op, a, err := parseRequest(body)
	if err != nil {
		h.writeFault(w, toFault(err))
		return
	}
	out := soapxml.GetBuf()
	defer soapxml.PutBuf(out)
	b := soapxml.AppendBodyStart(*out, Namespace, op.name, "Response")
	b, err = op.call(r.Context(), h, a, b)
	*out = b
	if err != nil {
		f := toFault(err)
		if f.Code == FaultServer {
			h.log.Warn("soap: trade service fault", "op", op.name, "err", err)
		}
		h.writeFault(w, f)
		return
	}
	*out = soapxml.AppendBodyEnd(b, op.name, "Response")
	soapxml.Write(w, http.StatusOK, *out)
}

// toFault classifies an error: domain errors and malformed input are the caller's (Client),
// anything else the server's.
func toFault(err error) *soapFault {
	var f *soapFault
	switch de := trade.AsError(err); {
	case errors.As(err, &f):
		return f
	case de != nil:
		return &soapFault{Fault: soapxml.Fault{Code: FaultClient, String: de.Message}, detail: de, status: http.StatusInternalServerError}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return newFault(FaultServer, "the call was cancelled or timed out: "+err.Error(), http.StatusServiceUnavailable)
	}
	if sf, ok := soapxml.AsFault(err); ok { // the request, as read
		return &soapFault{Fault: *sf, status: http.StatusInternalServerError}
	}
	return newFault(FaultServer, "trade service: "+err.Error(), http.StatusInternalServerError)
}

// WriteClientFault answers a soap:Client fault with an HTTP status, for a request refused
// before its envelope is read (e.g. one without the service token: 401).
func WriteClientFault(w http.ResponseWriter, status int, msg string) {
	soapxml.WriteFault(w, status, &soapxml.Fault{Code: FaultClient, String: msg}, nil)
}

func (h *Handler) writeFault(w http.ResponseWriter, f *soapFault) {
	soapxml.WriteFault(w, f.status, &f.Fault, f.appendDetail())
}

// appendDetail writes the TradeFault of a domain error; nil if there is none.
func (f *soapFault) appendDetail() func([]byte) []byte {
	if f.detail == nil {
		return nil
	}
	return func(b []byte) []byte {
		b = append(b, `<TradeFault xmlns="`+Namespace+`">`...)
		b = soapxml.AppendString(b, "code", string(f.detail.Code))
		b = soapxml.AppendString(b, "message", f.detail.Message)
		return append(b, "</TradeFault>"...)
	}
}

func appendFault(b []byte, f *soapFault) []byte {
	return soapxml.AppendFault(b, &f.Fault, f.appendDetail())
}

// expectOp describes the Body's element, for the fault about an empty Body.
const expectOp = "one operation element in namespace " + Namespace + " (see the WSDL)"

// parseRequest reads the envelope (see soapxml.Reader.Envelope) and its one operation element.
func parseRequest(doc []byte) (*opSpec, args, error) {
	c := getCursor(doc)
	defer putCursor(c)
	var op *opSpec
	var a args
	err := c.Envelope(expectOp, func(t *soapxml.Token) (err error) {
		op = opByName[string(t.Local)]
		if string(t.NS) != Namespace || op == nil {
			return malformed("unknown operation {%s}%s; see the WSDL", soapxml.Clip(t.NS), soapxml.Clip(t.Local))
		}
		a, err = readArgs(c, op)
		return err
	})
	if err != nil {
		return nil, args{}, err
	}
	return op, a, nil
}
