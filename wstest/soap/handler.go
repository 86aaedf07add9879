package soap

import (
	"errors"
	"log/slog"
	"mime"
	"net/http"

	"github.com/tradebench/tradebench/internal/soapxml"
	"github.com/tradebench/tradebench/wstest"
)

// Path is where the SOAP endpoint is mounted.
const Path = "/wstest/soap"

// Handler is the SOAP 1.1 endpoint: POST an envelope, GET ?wsdl for the description. The body's
// element selects the operation; SOAPAction is accepted and ignored. Every error is a SOAP Fault
// with HTTP 500 (as SOAP 1.1 requires), except a wrong HTTP method (405).
type Handler struct {
	lim wstest.Limits
	log *slog.Logger
}

// NewHandler returns the endpoint with the given limits (zero fields take the defaults).
func NewHandler(lim wstest.Limits, log *slog.Logger) *Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Handler{lim: lim.OrDefault(), log: log}
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			h.log.Error("wstest soap: panic", "panic", v)
			h.fault(w, http.StatusInternalServerError, &Fault{Code: CodeServer, String: "internal error"})
		}
	}()
	switch r.Method {
	case http.MethodPost:
	case http.MethodGet, http.MethodHead:
		if soapxml.IsWSDLQuery(r.URL.RawQuery) {
			wsdl.Serve(w, r)
			return
		}
		fallthrough
	default:
		w.Header().Set("Allow", "GET, POST")
		h.fault(w, http.StatusMethodNotAllowed, clientFault("method %s not allowed: POST SOAP 1.1 envelopes here, or GET %s?wsdl for the WSDL", r.Method, Path))
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "" && !plainXMLType(ct) {
		mt, params, err := mime.ParseMediaType(ct)
		if err != nil {
			h.fault(w, http.StatusInternalServerError, clientFault("bad Content-Type %q: %v", ct, err))
			return
		}
		if mt == "application/soap+xml" {
			h.fault(w, http.StatusInternalServerError, &Fault{Code: CodeVersionMismatch, String: "application/soap+xml is SOAP 1.2; this endpoint speaks SOAP 1.1 (text/xml)"})
			return
		}
		if cs := params["charset"]; cs != "" && !soapxml.IsUTF8Name([]byte(cs)) {
			h.fault(w, http.StatusInternalServerError, clientFault("charset %q is not supported: send UTF-8", cs))
			return
		}
	}
	if r.ContentLength > h.lim.MaxBodyBytes {
		h.fault(w, http.StatusInternalServerError, clientFault("request body of %d bytes exceeds the limit of %d bytes", r.ContentLength, h.lim.MaxBodyBytes))
		return
	}
	bp := soapxml.GetBuf()
	defer soapxml.PutBuf(bp)
	body, err := soapxml.ReadBody(*bp, r.Body, r.ContentLength, h.lim.MaxBodyBytes)
	*bp = body
	if err != nil {
		if errors.Is(err, soapxml.ErrTooLarge) {
			h.fault(w, http.StatusInternalServerError, clientFault("request body exceeds the limit of %d bytes", h.lim.MaxBodyBytes))
		} else {
			h.fault(w, http.StatusInternalServerError, clientFault("reading request body: %v", err))
		}
		return
	}
	var m Message
	if err := DecodeRequest(body, h.lim, &m); err != nil {
		f, ok := soapxml.AsFault(err)
		if !ok {
			f = clientFault("%v", err)
		}
		h.fault(w, http.StatusInternalServerError, f)
		return
	}
	if m.Op == wstest.GetOrder {
		if m.Size < 0 {
			h.fault(w, http.StatusInternalServerError, clientFault("messageSize %d: must be 0 or more", m.Size))
			return
		}
		if err := h.lim.CheckItems("messageSize", int(m.Size)); err != nil {
			h.fault(w, http.StatusInternalServerError, clientFault("%v", err))
			return
		}
		m.Order = wstest.BuildOrder(m.OrderID, m.CustomerID, m.Size)
	}
	// the echo: the decoded parameters go straight back out
	op := soapxml.GetBuf()
	defer soapxml.PutBuf(op)
	*op = AppendResponse(*op, &m)
	soapxml.Write(w, http.StatusOK, *op)
}

// plainXMLType recognizes the content types SOAP 1.1 clients send without parsing them:
// text/xml, alone or with a UTF-8 charset.
func plainXMLType(ct string) bool {
	switch ct {
	case "text/xml", "text/xml; charset=utf-8", "text/xml; charset=UTF-8", "text/xml;charset=utf-8", "text/xml;charset=UTF-8", `text/xml; charset="utf-8"`:
		return true
	}
	return false
}

func (h *Handler) fault(w http.ResponseWriter, status int, f *Fault) {
	soapxml.WriteFault(w, status, f, nil)
}
