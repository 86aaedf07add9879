package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/sse"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/stream"
	"github.com/tradebench/tradebench/trade/web"
)

// BenchmarkStreamFanout: one quote change delivered to 100 SSE subscribers of every symbol over
// loopback (the server's writes and the readers' parsing, as in drive --stream-subscribers);
// ns/op is per change, so per delivered event divide by 100.
func BenchmarkStreamFanout(b *testing.B) {
	const subs = 100
	svc := business.New(smallStore(b), business.DefaultOptions())
	hub := stream.NewHub[*stream.Event](0)
	h, err := web.New(svc, web.Options{Quotes: hub, AnonStreamMaxAge: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got atomic.Int64
	var wg sync.WaitGroup
	for range subs {
		st, err := sse.Dial(ctx, &http.Client{}, srv.URL+"/trade/stream/quotes")
		if err != nil {
			b.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer st.Close()
			for {
				if _, err := st.Next(); err != nil {
					return
				}
				got.Add(1)
			}
		}()
	}
	for hub.Len() < subs {
		time.Sleep(time.Millisecond)
	}
	q := stream.QuoteOf(trade.Quote{Symbol: "s:1", Price: 12345, Change: -55, Low: 12000, High: 13000, Volume: 987654}, time.Now())
	got.Store(0)
	wait := func(n int64) {
		for got.Load() < n {
			if d := hub.Stats().Dropped; d != 0 {
				b.Fatalf("%d subscribers dropped as too slow", d) // they would never catch up
			}
			time.Sleep(10 * time.Microsecond)
		}
	}
	b.ResetTimer()
	for i := range b.N {
		hub.Publish("s:1", stream.NewEvent(q))
		if i%32 == 31 { // keep within the subscribers' buffers, as a real market would
			wait(int64(i+1)*subs - subs*16)
		}
	}
	wait(int64(b.N) * subs)
	b.StopTimer()
	b.ReportMetric(float64(b.N*subs)/b.Elapsed().Seconds(), "events/s")
}
