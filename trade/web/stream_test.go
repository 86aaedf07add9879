package web_test

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/sse"
	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/stream"
	"github.com/tradebench/tradebench/trade/web"
)

// TestStreamLifetime: a stream opened without a session ends (with an "end" event) when its
// lifetime — the server's timeouts — is over, even while events keep coming; a logged-in
// visitor's stream outlives it.
func TestStreamLifetime(t *testing.T) {
	const anon = 300 * time.Millisecond
	hub, srv := streamServer(t, 0, anon)
	stop := make(chan struct{})
	defer close(stop)
	go func() { // a busy market: an event every 20ms
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				hub.Publish("s:1", stream.NewEvent(stream.Quote{Symbol: "s:1", Time: time.Now()}))
			}
		}
	}()
	// until returns how long the stream lasted and its last event, or gives up after limit
	until := func(c *http.Client, limit time.Duration) (time.Duration, string) {
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		defer cancel()
		start := time.Now()
		st, err := sse.Dial(ctx, c, srv.URL+"/trade/stream/quotes?symbols=s:1")
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		last := ""
		for {
			ev, err := st.Next()
			if err != nil {
				return time.Since(start), last
			}
			last = ev.Name
		}
	}
	if d, last := until(&http.Client{}, 20*time.Second); last != "end" || d < anon || d > 10*time.Second {
		t.Errorf("anonymous stream: lasted %v, last event %q; want an end event after %v", d, last, anon)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.PostForm(srv.URL+"/trade/login", url.Values{"uid": {"uid:1"}, "passwd": {"xxx"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if d, last := until(c, 3*time.Second); last != "quote" || d < 3*time.Second-100*time.Millisecond {
		t.Errorf("logged-in stream: ended after %v (last event %q); want it to outlive the anonymous limit", d, last)
	}
}

// streamServer is a web tier over a small store whose quote streams come from a hub of the
// given buffer (0: the default); an anonymous stream lasts anon, a logged-in one an hour.
func streamServer(t *testing.T, buffer int, anon time.Duration) (*stream.Hub[*stream.Event], *httptest.Server) {
	t.Helper()
	hub := stream.NewHub[*stream.Event](buffer)
	h, err := web.New(business.New(smallStore(t), business.DefaultOptions()), web.Options{Quotes: hub, AnonStreamMaxAge: anon, StreamMaxAge: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return hub, srv
}
