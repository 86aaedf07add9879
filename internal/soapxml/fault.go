package soapxml

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
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

// ContentType is the media type of every SOAP 1.1 message and WSDL this package writes.
const ContentType = "text/xml; charset=utf-8"

var contentTypeXML = []string{ContentType}

// Write sends a whole message (an envelope or a WSDL) with its length, as text/xml.
func Write(w http.ResponseWriter, status int, b []byte) {
	hd := w.Header()
	hd["Content-Type"] = contentTypeXML
	hd["Content-Length"] = []string{strconv.Itoa(len(b))}
	w.WriteHeader(status)
	w.Write(b)
}

// WriteFault sends a fault envelope with the given HTTP status (500 for a fault, as SOAP 1.1
// over HTTP and the WS-I Basic Profile require, unless the transport itself was refused).
func WriteFault(w http.ResponseWriter, status int, f *Fault, detail func([]byte) []byte) {
	bp := GetBuf()
	defer PutBuf(bp)
	*bp = AppendFault((*bp)[:0], f, detail)
	Write(w, status, *bp)
}

// bufPool holds request and response buffers.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

// GetBuf takes an empty buffer from the pool.
func GetBuf() *[]byte {
	b := bufPool.Get().(*[]byte)
	*b = (*b)[:0]
	return b
}

// PutBuf returns a buffer to the pool; a large one (a rare big message) is left to the GC.
func PutBuf(b *[]byte) {
	if cap(*b) > 1<<20 {
		return
	}
	*b = (*b)[:0]
	bufPool.Put(b)
}

// ErrTooLarge is ReadBody's error for a body over its limit.
var ErrTooLarge = errors.New("body exceeds the limit")

// ReadBody reads all of r into buf (reusing its capacity), refusing more than limit bytes with
// ErrTooLarge. size is the declared length (-1 if unknown): a body that will not fit is read
// into one buffer of that size, and an undeclared one into a buffer that doubles. (append grows
// a large slice by 1.25x, so an 8 MiB body read that way allocates and copies ~40 MB.)
func ReadBody(buf []byte, r io.Reader, size, limit int64) ([]byte, error) {
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
			return buf, ErrTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// IsWSDLQuery reports whether a URL's raw query asks for the WSDL: ?wsdl, ?WSDL, ?wsdl=1, …
func IsWSDLQuery(q string) bool {
	for _, part := range strings.Split(q, "&") {
		if k, _, _ := strings.Cut(part, "="); strings.EqualFold(k, "wsdl") {
			return true
		}
	}
	return false
}

// WSDL is a service description cut at its endpoint address, so that serving it to a request
// only writes the address the request came to.
type WSDL struct {
	Head string // up to and including `location="`
	Tail string // from the closing quote on
}

// Doc returns the description with its endpoint at location.
func (d *WSDL) Doc(location string) []byte {
	b := make([]byte, 0, len(d.Head)+len(location)+len(d.Tail)+16)
	b = append(b, d.Head...)
	b = AppendAttr(b, location)
	return append(b, d.Tail...)
}

// Serve answers GET or HEAD ?wsdl with the description, its endpoint being where it was asked.
func (d *WSDL) Serve(w http.ResponseWriter, r *http.Request) {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	doc := d.Doc(scheme + "://" + r.Host + r.URL.Path)
	if r.Method == http.MethodHead {
		hd := w.Header()
		hd["Content-Type"] = contentTypeXML
		hd["Content-Length"] = []string{strconv.Itoa(len(doc))}
		w.WriteHeader(http.StatusOK)
		return
	}
	Write(w, http.StatusOK, doc)
}

// WriteSequence writes an xs:sequence of fs, one xs:element a line at indent, for a WSDL's
// schema: so the description is made from the same Fields the Reader checks, and cannot drift
// from them.
func WriteSequence(sb *strings.Builder, fs []Field, indent string) {
	sb.WriteString(indent + "<xs:sequence>\n")
	for _, f := range fs {
		sb.WriteString(indent + `  <xs:element name="` + f.Name + `" type="` + f.XSD + `"`)
		if f.Optional {
			sb.WriteString(` minOccurs="0"`)
		}
		if f.Many {
			sb.WriteString(` maxOccurs="unbounded"`)
		}
		sb.WriteString("/>\n")
	}
	sb.WriteString(indent + "</xs:sequence>\n")
}
