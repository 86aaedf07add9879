// Package soap serves trade.Service as a SOAP 1.1 document/literal (wrapped) web service over
// HTTP, with its WSDL at ?wsdl, and provides a client that implements trade.Service over it.
// The envelopes are hand-written with encoding/xml's tokenizer and append-based serialization:
// no reflection on the hot path, bounded decoding of hostile input.
//
// Money crosses as an exact xs:decimal with two places ("1234.50"); times as xs:dateTime, absent
// when not set. A domain error is a soap:Client fault whose detail holds
// <TradeFault xmlns="urn:tradebench:trade:v1"><code>not_found</code><message>…</message></TradeFault>.
package soap

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

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
	FaultClient          = "Client"
	FaultServer          = "Server"
	FaultVersionMismatch = "VersionMismatch"
	FaultMustUnderstand  = "MustUnderstand"
)

// faultDetailFields is the TradeFault detail element's content.
var faultDetailFields = []field{{name: "code", xsd: "xs:string"}, {name: "message", xsd: "xs:string"}}

// soapFault is a fault the server answers with.
type soapFault struct {
	code   string // FaultClient...
	msg    string
	detail *trade.Error
	status int // HTTP status; 500 as WS-I Basic Profile requires unless a transport problem
}

func (f *soapFault) Error() string { return f.msg }

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

const (
	envStart = `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="` + EnvelopeNS + `"><soap:Body>`
	envEnd   = `</soap:Body></soap:Envelope>`
)

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			h.log.Error("soap: panic in handler", "panic", p, "stack", string(debug.Stack()))
			h.writeFault(w, &soapFault{code: FaultServer, msg: "internal error", status: http.StatusInternalServerError})
		}
	}()
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		if _, ok := r.URL.Query()["wsdl"]; ok || strings.EqualFold(r.URL.RawQuery, "wsdl") {
			h.serveWSDL(w, r)
			return
		}
		w.Header().Set("Allow", "POST, GET")
		http.Error(w, "POST SOAP 1.1 envelopes here (Content-Type: text/xml); the WSDL is at "+r.URL.Path+"?wsdl", http.StatusMethodNotAllowed)
		return
	case http.MethodPost:
	default:
		w.Header().Set("Allow", "POST, GET")
		h.writeFault(w, &soapFault{code: FaultClient, msg: "use POST with a SOAP 1.1 envelope", status: http.StatusMethodNotAllowed})
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		switch {
		case err == nil && (mt == "text/xml" || mt == "application/xml"):
		case err == nil && mt == "application/soap+xml":
			h.writeFault(w, &soapFault{code: FaultVersionMismatch, msg: "this endpoint speaks SOAP 1.1 (text/xml), not SOAP 1.2", status: http.StatusUnsupportedMediaType})
			return
		default:
			h.writeFault(w, &soapFault{code: FaultClient, msg: "Content-Type must be text/xml", status: http.StatusUnsupportedMediaType})
			return
		}
	}
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	body, err := readBody(http.MaxBytesReader(w, r.Body, h.max), (*bp)[:0])
	*bp = body[:0]
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			h.writeFault(w, &soapFault{code: FaultClient, msg: "the request is larger than " + strconv.FormatInt(h.max, 10) + " bytes", status: http.StatusRequestEntityTooLarge})
			return
		}
		h.writeFault(w, &soapFault{code: FaultClient, msg: "reading the request: " + err.Error(), status: http.StatusBadRequest})
		return
	}
	op, a, err := parseRequest(body)
	if err != nil {
		h.writeFault(w, toFault(err))
		return
	}
	out := bufPool.Get().(*[]byte)
	defer bufPool.Put(out)
	b := append((*out)[:0], envStart...)
	b = append(b, '<')
	b = append(b, op.name...)
	b = append(b, "Response xmlns=\""+Namespace+"\">"...)
	b, err = op.call(r.Context(), h, a, b)
	*out = b[:0]
	if err != nil {
		f := toFault(err)
		if f.code == FaultServer {
			h.log.Warn("soap: trade service fault", "op", op.name, "err", err)
		}
		h.writeFault(w, f)
		return
	}
	b = append(b, "</"...)
	b = append(b, op.name...)
	b = append(b, "Response>"...)
	b = append(b, envEnd...)
	*out = b[:0]
	hd := w.Header()
	hd.Set("Content-Type", "text/xml; charset=utf-8")
	hd.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	w.Write(b)
}

// readBody reads all of r into buf.
func readBody(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil {
			if err == io.EOF {
				return buf, nil
			}
			return buf, err
		}
	}
}

// toFault classifies an error: domain errors and malformed input are the caller's (Client),
// anything else the server's.
func toFault(err error) *soapFault {
	var f *soapFault
	var m *errMalformed
	switch de := trade.AsError(err); {
	case errors.As(err, &f):
		return f
	case de != nil:
		return &soapFault{code: FaultClient, msg: de.Message, detail: de, status: http.StatusInternalServerError}
	case errors.As(err, &m):
		return &soapFault{code: FaultClient, msg: m.msg, status: http.StatusInternalServerError}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &soapFault{code: FaultServer, msg: "the call was cancelled or timed out: " + err.Error(), status: http.StatusServiceUnavailable}
	}
	return &soapFault{code: FaultServer, msg: "trade service: " + err.Error(), status: http.StatusInternalServerError}
}

// WriteClientFault answers a soap:Client fault with an HTTP status, for a request refused
// before its envelope is read (e.g. one without the service token: 401).
func WriteClientFault(w http.ResponseWriter, status int, msg string) {
	(*Handler)(nil).writeFault(w, &soapFault{code: FaultClient, msg: msg, status: status})
}

// writeFault uses no Handler state (WriteClientFault calls it on nil).
func (h *Handler) writeFault(w http.ResponseWriter, f *soapFault) {
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	b := appendFault((*bp)[:0], f)
	*bp = b[:0]
	hd := w.Header()
	hd.Set("Content-Type", "text/xml; charset=utf-8")
	hd.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(f.status)
	w.Write(b)
}

func appendFault(b []byte, f *soapFault) []byte {
	b = append(b, envStart...)
	b = append(b, "<soap:Fault><faultcode>soap:"...)
	b = append(b, f.code...)
	b = append(b, "</faultcode>"...)
	b = appendString(b, "faultstring", f.msg)
	if f.detail != nil {
		b = append(b, `<detail><TradeFault xmlns="`+Namespace+`">`...)
		b = appendString(b, "code", string(f.detail.Code))
		b = appendString(b, "message", f.detail.Message)
		b = append(b, "</TradeFault></detail>"...)
	}
	b = append(b, "</soap:Fault>"...)
	return append(b, envEnd...)
}

// parseRequest reads Envelope, optional Header (refusing mustUnderstand blocks), Body with
// exactly one operation element, and nothing after.
func parseRequest(doc []byte) (*opSpec, args, error) {
	c := newCursor(doc)
	env, ok, err := c.child()
	if err != nil {
		return nil, args{}, err
	}
	if !ok {
		return nil, args{}, malformed("empty document")
	}
	if env.Name.Local == "Envelope" && env.Name.Space == soap12NS {
		return nil, args{}, &soapFault{code: FaultVersionMismatch, msg: "this endpoint speaks SOAP 1.1, not SOAP 1.2", status: http.StatusInternalServerError}
	}
	if env.Name.Local != "Envelope" || env.Name.Space != EnvelopeNS {
		if env.Name.Local == "Envelope" {
			return nil, args{}, &soapFault{code: FaultVersionMismatch, msg: "the Envelope is not in the SOAP 1.1 namespace " + EnvelopeNS, status: http.StatusInternalServerError}
		}
		return nil, args{}, malformed("the document element must be a SOAP 1.1 Envelope, not <%s>", shorten(env.Name.Local, 64))
	}
	var op *opSpec
	var a args
	sawHeader, sawBody := false, false
	for {
		se, ok, err := c.child()
		if err != nil {
			return nil, args{}, err
		}
		if !ok {
			break
		}
		switch {
		case se.Name.Space == EnvelopeNS && se.Name.Local == "Header" && !sawHeader && !sawBody:
			sawHeader = true
			if err := skipHeaders(c); err != nil {
				return nil, args{}, err
			}
		case se.Name.Space == EnvelopeNS && se.Name.Local == "Body" && !sawBody:
			sawBody = true
			if op, a, err = parseBody(c); err != nil {
				return nil, args{}, err
			}
		default:
			return nil, args{}, malformed("unexpected element <%s> in the Envelope", shorten(se.Name.Local, 64))
		}
	}
	if !sawBody {
		return nil, args{}, malformed("the Envelope has no Body")
	}
	if err := c.end(); err != nil {
		return nil, args{}, err
	}
	return op, a, nil
}

// skipHeaders skips header blocks; one marked mustUnderstand="1" is refused, as none is known.
func skipHeaders(c *cursor) error {
	for {
		se, ok, err := c.child()
		if err != nil || !ok {
			return err
		}
		for _, at := range se.Attr {
			if at.Name.Space == EnvelopeNS && at.Name.Local == "mustUnderstand" && strings.TrimSpace(at.Value) == "1" {
				return &soapFault{code: FaultMustUnderstand, msg: "header <" + shorten(se.Name.Local, 64) + "> is not understood", status: http.StatusInternalServerError}
			}
		}
		if err := c.skip(); err != nil {
			return err
		}
	}
}

func parseBody(c *cursor) (*opSpec, args, error) {
	se, ok, err := c.child()
	if err != nil {
		return nil, args{}, err
	}
	if !ok {
		return nil, args{}, malformed("the Body is empty; it must hold one operation element")
	}
	op := opByName[se.Name.Local]
	if se.Name.Space != Namespace || op == nil {
		return nil, args{}, malformed("unknown operation {%s}%s; see the WSDL", shorten(se.Name.Space, 80), shorten(se.Name.Local, 64))
	}
	a, err := readArgs(c, op)
	if err != nil {
		return nil, args{}, err
	}
	if _, more, err := c.child(); err != nil {
		return nil, args{}, err
	} else if more {
		return nil, args{}, malformed("the Body must hold exactly one operation element")
	}
	return op, a, nil
}
