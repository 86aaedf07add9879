package httpserve_test

import (
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/httpserve"
	"github.com/tradebench/tradebench/internal/testing/servetest"
)

func TestDefaultsAreSet(t *testing.T) {
	s := httpserve.New(http.NotFoundHandler(), httpserve.Options{})
	if s.ReadHeaderTimeout != httpserve.DefaultReadHeaderTimeout || s.ReadTimeout != httpserve.DefaultReadTimeout ||
		s.WriteTimeout != httpserve.DefaultWriteTimeout || s.IdleTimeout != httpserve.DefaultIdleTimeout ||
		s.MaxHeaderBytes != httpserve.DefaultMaxHeaderBytes || s.ErrorLog == nil {
		t.Fatalf("defaults not applied: %+v", s)
	}
	s = httpserve.New(http.NotFoundHandler(), httpserve.Options{ReadTimeout: time.Second})
	if s.ReadHeaderTimeout != time.Second {
		t.Fatalf("header timeout %v is longer than the whole request's (1s)", s.ReadHeaderTimeout)
	}
}

// TestSlowBodyIsCut: a body that trickles in is cut by the read timeout, on a real listener.
func TestSlowBodyIsCut(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := httpserve.New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
	}), httpserve.Options{ReadTimeout: 300 * time.Millisecond})
	go s.Serve(ln)
	defer s.Close()
	servetest.CheckSlowBodyCut(t, ln.Addr().String(), "/", 3*time.Second)
}
