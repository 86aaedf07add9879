package web_test

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/sse"
	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/stream"
	"github.com/tradebench/tradebench/trade/web"
)

// TestStreamPerClientCap: 1,000 streams from one address must not take every slot of the web
// tier (the next visitor would get 503): one address holds at most StreamPerClient streams
// (429 beyond, saying so) while the tier's own limit is far from reached; a closed stream
// frees its slot.
// Mutant checked by hand: acquireStream without the per-client count → "stream 4 from one
// address: 200, want 429".
func TestStreamPerClientCap(t *testing.T) {
	svc := business.New(smallStore(t), business.DefaultOptions())
	const per = 3
	h, err := web.New(svc, web.Options{Quotes: stream.NewHub[*stream.Event](0), StreamLimit: 100, StreamPerClient: per})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var open []*sse.Stream
	for i := range per {
		st, err := sse.Dial(ctx, &http.Client{}, srv.URL+"/trade/stream/quotes?symbols=s:1")
		if err != nil {
			t.Fatalf("stream %d: %v", i+1, err)
		}
		open = append(open, st)
	}
	resp, err := http.Get(srv.URL + "/trade/stream/quotes?symbols=s:1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("stream %d from one address: %d, want 429", per+1, resp.StatusCode)
	}
	open[0].Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := sse.Dial(ctx, &http.Client{}, srv.URL+"/trade/stream/quotes?symbols=s:1")
		if err == nil {
			st.Close()
			break
		}
		if !strings.Contains(err.Error(), "429") || time.Now().After(deadline) {
			t.Fatalf("after closing a stream: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, st := range open[1:] {
		st.Close()
	}
}

// TestLoggedInStreamBoundedLikeAnonymous: registration is public, so a session is no
// credential, and a logged-in visitor's stream must not outlive an anonymous one's 60 s by
// far (30 minutes): unless configured otherwise, it ends at the anonymous bound too.
// Mutant checked by hand: StreamMaxAge defaulting to 30 minutes → "logged-in stream: still
// open after 3s".
func TestLoggedInStreamBoundedLikeAnonymous(t *testing.T) {
	svc := business.New(smallStore(t), business.DefaultOptions())
	h, err := web.New(svc, web.Options{Quotes: stream.NewHub[*stream.Event](0), AnonStreamMaxAge: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.PostForm(srv.URL+"/trade/login", url.Values{"uid": {"uid:1"}, "passwd": {"xxx"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	st, err := sse.Dial(ctx, c, srv.URL+"/trade/stream/quotes?symbols=s:1")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for {
		ev, err := st.Next()
		if err != nil {
			t.Fatalf("logged-in stream: still open after 3s (%v)", err)
		}
		if ev.Name == "end" {
			return
		}
	}
}
