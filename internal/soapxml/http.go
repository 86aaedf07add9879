package soapxml

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"
)

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
