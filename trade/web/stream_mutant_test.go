package web_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/sse"
	"github.com/tradebench/tradebench/trade/stream"
)

// TestStreamEndsWhenDropped: when the hub drops a stream's subscriber as too slow (buffer 1,
// events published faster than one write each), the stream says so with a last "dropped" event
// and ends, instead of staying open on a subscription that will never deliver again. The
// stream's lifetime is an hour, so only the drop can end it within the test's bound.
//
// Mutant killed: the `case <-sub.Gone()` in pump replaced by a nil channel: the stream stays
// open (pings only) until the client gives up.
func TestStreamEndsWhenDropped(t *testing.T) {
	hub, srv := streamServer(t, 1, time.Hour)

	// generous: the drop ends the stream at once; only a stream that never ends waits it out
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st, err := sse.Dial(ctx, &http.Client{}, srv.URL+"/trade/stream/quotes?symbols=s:1")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for hub.Len() == 0 { // the server subscribes before it writes the headers Dial waited for
		if ctx.Err() != nil {
			t.Fatal("the stream never subscribed")
		}
		time.Sleep(time.Millisecond)
	}
	for hub.Stats().Dropped == 0 {
		if ctx.Err() != nil {
			t.Fatal("the hub never dropped the subscriber")
		}
		hub.Publish("s:1", stream.NewEvent(stream.Quote{Symbol: "s:1", Time: time.Now()}))
	}
	last := ""
	for {
		ev, err := st.Next()
		if err != nil {
			break
		}
		last = ev.Name
	}
	if ctx.Err() != nil {
		t.Fatalf("the stream stayed open after its subscriber was dropped (last event %q)", last)
	}
	if last != "dropped" {
		t.Fatalf("the stream's last event is %q, want \"dropped\"", last)
	}
}
