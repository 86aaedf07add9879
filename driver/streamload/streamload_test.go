package streamload

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestMeasuresDelivery: subscribers read timestamped events from a real SSE server over
// loopback; events stamped 50ms in the past show a latency of at least 50ms, events outside the
// window are not counted, and a subscriber beyond the server's cap is counted as refused.
func TestMeasuresDelivery(t *testing.T) {
	const cap = 3
	open := make(chan struct{}, cap)
	tick := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case open <- struct{}{}:
			defer func() { <-open }()
		default:
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-tick:
			}
			at := time.Now().Add(-50 * time.Millisecond).UTC().Format(time.RFC3339Nano)
			fmt.Fprintf(w, "event: quote\ndata: {\"symbol\":\"s:1\",\"time\":%q}\n\n: ping\n\n", at)
			w.(http.Flusher).Flush()
		}
	}))
	defer srv.Close()
	r, err := Start(context.Background(), Config{URL: srv.URL, Subscribers: cap + 1, ConnectTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Stop()
	emit := func(n int) {
		for range n {
			for range cap {
				tick <- struct{}{}
			}
		}
	}
	emit(2) // before the window: not counted
	time.Sleep(100 * time.Millisecond)
	r.Window(time.Now(), time.Now().Add(time.Hour))
	emit(5)
	time.Sleep(200 * time.Millisecond)
	r.Stop()
	res := r.Result(1)
	if res.Connected != cap || res.Refused == 0 {
		t.Errorf("connected %d refused %d: want %d connected and the extra one refused", res.Connected, res.Refused, cap)
	}
	if res.Delivery.Count != 5*cap {
		t.Errorf("events in the window: %d, want %d", res.Delivery.Count, 5*cap)
	}
	// the histogram keeps 3 significant figures: 50 ms may read back as its bucket's low end
	// (49.98 ms), never below 49.95
	if res.Delivery.MinMs < 49.95 {
		t.Errorf("min latency %.2fms, want at least the 50ms the events were stamped in the past", res.Delivery.MinMs)
	}
	t.Log(res.Line())
}
