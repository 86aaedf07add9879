package soap

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"

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

func isWSDLQuery(q string) bool {
	for _, part := range strings.Split(q, "&") {
		if k, _, _ := strings.Cut(part, "="); strings.EqualFold(k, "wsdl") {
			return true
		}
	}
	return false
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
		if isWSDLQuery(r.URL.RawQuery) {
			h.serveWSDL(w, r)
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
		if cs := params["charset"]; cs != "" && !isUTF8Name([]byte(cs)) {
			h.fault(w, http.StatusInternalServerError, clientFault("charset %q is not supported: send UTF-8", cs))
			return
		}
	}
	if r.ContentLength > h.lim.MaxBodyBytes {
		h.fault(w, http.StatusInternalServerError, clientFault("request body of %d bytes exceeds the limit of %d bytes", r.ContentLength, h.lim.MaxBodyBytes))
		return
	}
	bp := getBuf()
	defer putBuf(bp)
	body, err := readBody(*bp, r.Body, r.ContentLength, h.lim.MaxBodyBytes)
	*bp = body
	if err != nil {
		h.fault(w, http.StatusInternalServerError, clientFault("%v", err))
		return
	}
	var m Message
	if err := DecodeRequest(body, h.lim, &m); err != nil {
		var f *Fault
		if !errors.As(err, &f) {
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
	op := getBuf()
	defer putBuf(op)
	out := AppendResponse((*op)[:0], &m)
	*op = out
	hd := w.Header()
	hd["Content-Type"] = contentTypeXML
	hd["Content-Length"] = []string{strconv.Itoa(len(out))}
	w.WriteHeader(http.StatusOK)
	w.Write(out)
}

var contentTypeXML = []string{"text/xml; charset=utf-8"}

// plainXMLType recognizes the content types SOAP 1.1 clients send without parsing them:
// text/xml, alone or with a UTF-8 charset.
func plainXMLType(ct string) bool {
	switch ct {
	case "text/xml", "text/xml; charset=utf-8", "text/xml; charset=UTF-8", "text/xml;charset=utf-8", "text/xml;charset=UTF-8", `text/xml; charset="utf-8"`:
		return true
	}
	return false
}

// readBody reads all of r into buf (reusing its capacity), refusing more than max bytes. size is
// the declared length (-1 if unknown): a body that will not fit is read into one buffer of that
// size, and an undeclared one into a buffer that doubles. (append grows a large slice by 1.25x,
// so an 8 MiB body read that way allocates and copies ~40 MB.)
func readBody(buf []byte, r io.Reader, size, limit int64) ([]byte, error) {
	buf = buf[:0]
	if size > int64(cap(buf)) && size <= limit {
		buf = make([]byte, 0, size+1) // +1: room for the read that reports EOF
	}
	for {
		if len(buf) == cap(buf) {
			nb := make([]byte, len(buf), min(max(2*int64(cap(buf)), 8<<10), limit+1))
			copy(nb, buf)
			buf = nb
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return buf, fmt.Errorf("request body exceeds the limit of %d bytes", limit)
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, fmt.Errorf("reading request body: %v", err)
		}
	}
}

func (h *Handler) fault(w http.ResponseWriter, status int, f *Fault) {
	bp := getBuf()
	defer putBuf(bp)
	*bp = AppendFault((*bp)[:0], f)
	hd := w.Header()
	hd["Content-Type"] = contentTypeXML
	hd["Content-Length"] = []string{strconv.Itoa(len(*bp))}
	w.WriteHeader(status)
	w.Write(*bp)
}

func (h *Handler) serveWSDL(w http.ResponseWriter, r *http.Request) {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	doc := WSDL(scheme + "://" + r.Host + r.URL.Path)
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(doc)))
	if r.Method == http.MethodHead {
		return
	}
	io.WriteString(w, doc)
}
