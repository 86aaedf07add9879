package orders_test

import (
	"context"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/testing/pgtest"
	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/orders"
	"github.com/tradebench/tradebench/trade/store/storetest"
)

// BenchmarkOrderModes measures, per order mode, how many buy/sell orders a 4-worker load
// places per second through the in-process service, and the completion latency of those
// orders (open date to completion date, from the orders table) once the queue drains.
// TRADEBENCH_BENCH_DB=postgres runs it on PostgreSQL (default SQLite). Each iteration is one
// fixed 3 s load; use -benchtime=1x.
func BenchmarkOrderModes(b *testing.B) {
	for _, mode := range orders.Modes {
		b.Run(string(mode), func(b *testing.B) {
			dsn := storetest.SQLiteDSN(b)
			if os.Getenv("TRADEBENCH_BENCH_DB") == "postgres" {
				dsn = pgtest.DSN(b)
			}
			for range b.N {
				benchMode(b, dsn, mode)
			}
		})
	}
}

func benchMode(b *testing.B, dsn string, mode orders.Mode) {
	ctx := context.Background()
	st := loaded(b, dsn)
	li, _ := st.Loaded(ctx)
	run, svc, err := orders.StartServices(ctx, orders.Config{Mode: mode, WorkDir: b.TempDir(), Concurrency: 8, Batch: 64},
		func(d business.OrderDispatcher) *business.Service {
			return business.New(st, business.Options{Dispatch: d})
		}, true)
	if err != nil {
		b.Fatal(err)
	}
	defer run.Close()
	if mode == orders.AsyncVolatile {
		waitSubscribed(b, natsConn(b, run.NATSURL))
	}
	const dur = 3 * time.Second
	var placed atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()

	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ackingLoad(start.Add(dur), svc, uint64(w), func(int64) { placed.Add(1) })
		}()
	}
	wg.Wait()
	el := time.Since(start)
	waitFinal(b, st)
	drained := time.Since(start)
	var lat []time.Duration
	for u := range 20 {
		a, _ := st.Account(ctx, "uid:"+strconv.Itoa(u))
		os, _ := st.Orders(ctx, a.AccountID, 1_000_000)
		for _, o := range os {
			if o.OrderID > li.MaxOrderID && !o.CompletionDate.IsZero() {
				lat = append(lat, o.CompletionDate.Sub(o.OpenDate))
			}
		}
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(p*float64(len(lat))))]
	}
	b.ReportMetric(float64(placed.Load())/el.Seconds(), "orders/s")
	b.ReportMetric(float64(len(lat))/drained.Seconds(), "completed/s")
	b.ReportMetric(float64(pct(0.5).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(pct(0.99).Microseconds())/1000, "p99-ms")
}
