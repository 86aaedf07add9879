package web

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/stream"
)

// Stream defaults (Options.Stream*).
const (
	// DefaultStreamLimit is how many streams a web tier holds open at once; one more gets 503.
	DefaultStreamLimit = 1000
	// DefaultStreamPerClient is how many of them one client address may hold, so that one
	// address cannot take every slot and leave the next visitor a 503.
	DefaultStreamPerClient = 16
	// DefaultAnonStreamMaxAge bounds a stream opened without a session: as long as the web
	// server's write timeout, so a stranger holds a connection no longer than any other request.
	DefaultAnonStreamMaxAge = 60 * time.Second
	// streamWriteTimeout is how long one event may take to write: a reader that stalls longer
	// is dropped, its goroutine and connection freed.
	streamWriteTimeout = 10 * time.Second
	// streamPing is the comment sent on a quiet stream, so dead connections are noticed and
	// proxies do not time the stream out.
	streamPing = 15 * time.Second
	// streamRetryMs is the reconnection delay EventSource is told to use.
	streamRetryMs = 2000
)

// streamSymbols reads the quote stream's symbols: absent = every symbol, otherwise a
// comma-separated list of at most trade.MaxSymbols symbols, each printable text without
// spaces or NATS wildcards (the subject is trade.quotes.SYMBOL). Anything else is 400.
func streamSymbols(r *http.Request) ([]string, error) {
	if _, given := r.Form["symbols"]; !given {
		return nil, nil
	}
	raw := r.Form.Get("symbols")
	for _, part := range strings.Split(raw, ",") {
		s := strings.TrimSpace(part)
		if s == "" {
			return nil, trade.Errorf(trade.CodeInvalid, "The symbol list %q has an empty entry: give symbols separated by commas, e.g. s:1,s:2.",
				truncate(raw, 60))
		}
		if strings.ContainsAny(s, "*>.") || strings.IndexFunc(s, func(c rune) bool { return unicode.IsSpace(c) || !unicode.IsPrint(c) }) >= 0 {
			return nil, trade.Errorf(trade.CodeInvalid, "%q is not a symbol: no spaces, '.', '*' or '>'.", truncate(s, 40))
		}
	}
	return parseSymbols(raw)
}

// acquireStream takes one of the web tier's stream slots and one of the client address's, or
// answers 503 (the whole tier is full) or 429 (this client holds its share).
func (a *app) acquireStream(q *req) (release func(), err error) {
	client := q.r.RemoteAddr
	if h, _, err := net.SplitHostPort(client); err == nil {
		client = h
	}
	a.streamMu.Lock()
	if a.perClient[client] >= a.opts.StreamPerClient {
		a.streamMu.Unlock()
		q.w.Header().Set("Retry-After", "5")
		return nil, &httpError{status: http.StatusTooManyRequests,
			msg: fmt.Sprintf("This address already holds %d streams, the most one client may. Close one and try again.", a.opts.StreamPerClient)}
	}
	a.perClient[client]++
	a.streamMu.Unlock()
	releaseClient := func() {
		a.streamMu.Lock()
		if a.perClient[client]--; a.perClient[client] <= 0 {
			delete(a.perClient, client)
		}
		a.streamMu.Unlock()
	}
	if a.streams.Add(1) > int64(a.opts.StreamLimit) {
		a.streams.Add(-1)
		releaseClient()
		q.w.Header().Set("Retry-After", "5")
		return nil, &httpError{status: http.StatusServiceUnavailable,
			msg: fmt.Sprintf("This server already streams to %d clients, its limit. Try again shortly.", a.opts.StreamLimit)}
	}
	return func() { a.streams.Add(-1); releaseClient() }, nil
}

// sse is one open Server-Sent Events response.
type sse struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	end time.Time
}

// startSSE writes the stream's headers. The stream ends at end (see Options.StreamMaxAge).
func (a *app) startSSE(q *req) *sse {
	h := q.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	maxAge := a.opts.AnonStreamMaxAge
	if q.authed {
		maxAge = a.opts.StreamMaxAge
		if left := q.sess.Expires.Sub(a.opts.Clock()); left < maxAge {
			maxAge = left
		}
	}
	s := &sse{w: q.w, rc: http.NewResponseController(q.w), end: time.Now().Add(maxAge)}
	q.w.WriteHeader(http.StatusOK)
	s.write("retry: " + strconv.Itoa(streamRetryMs) + "\n\n")
	return s
}

// write sends text within the per-event write timeout; an error ends the stream.
func (s *sse) write(text string) error { return s.frame([]byte(text)) }

// frame sends an encoded event (stream.Event.Frame).
func (s *sse) frame(b []byte) error {
	s.rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
	if _, err := s.w.Write(b); err != nil {
		return err
	}
	return s.rc.Flush()
}

// event sends one event with v as JSON data.
func (s *sse) event(name string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.write("event: " + name + "\ndata: " + string(data) + "\n\n")
}

// pump forwards a subscription's events to the response until the client leaves, the
// subscriber is dropped as too slow, or the stream's lifetime ends.
func pump[T any](q *req, s *sse, sub *stream.Sub[T], name string) {
	ping := time.NewTicker(streamPing)
	defer ping.Stop()
	life := time.NewTimer(time.Until(s.end))
	defer life.Stop()
	for {
		var err error
		select {
		case v := <-sub.C:
			if f, ok := any(v).(interface{ Frame() []byte }); ok {
				err = s.frame(f.Frame()) // encoded once for every subscriber
			} else {
				err = s.event(name, v)
			}
		case <-ping.C:
			err = s.write(": ping\n\n")
		case <-sub.Gone():
			s.write("event: dropped\ndata: {\"reason\":\"too slow\"}\n\n")
			return
		case <-life.C:
			s.write("event: end\ndata: {\"reason\":\"stream lifetime reached; reconnect\"}\n\n")
			return
		case <-q.r.Context().Done():
			return
		}
		if err != nil {
			return
		}
	}
}

// streamQuotes is GET /trade/stream/quotes[?symbols=s:1,s:2]: quote changes as they happen.
// It needs no session: quotes are public market data, and the smart client and the load
// driver subscribe without a web login. A stranger's stream is bounded instead — by the cap on
// streams, the per-event write timeout, and a lifetime no longer than the server's timeouts.
func (a *app) streamQuotes(q *req) error {
	syms, err := streamSymbols(q.r)
	if err != nil {
		return err
	}
	release, err := a.acquireStream(q)
	if err != nil {
		return err
	}
	defer release()
	sub := a.opts.Quotes.Subscribe(syms)
	defer a.opts.Quotes.Unsubscribe(sub)
	pump(q, a.startSSE(q), sub, "quote")
	return nil
}

// streamSummary is GET /trade/stream/summary: the market summary now and whenever it changes.
func (a *app) streamSummary(q *req) error {
	release, err := a.acquireStream(q)
	if err != nil {
		return err
	}
	defer release()
	sub := a.summary.Subscribe()
	defer a.summary.Unsubscribe(sub)
	m, err := a.svc.GetMarketSummary(q.r.Context())
	if err != nil {
		return err
	}
	s := a.startSSE(q)
	if s.event("summary", m) != nil {
		return nil
	}
	pump(q, s, sub, "summary")
	return nil
}
