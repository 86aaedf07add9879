package load

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tradebench/tradebench/driver/metrics"
)

func TestClosedModelPhasesAndThink(t *testing.T) {
	var iters atomic.Int64
	w := Func(func(ctx context.Context, it *Iteration) error {
		iters.Add(1)
		s := it.StartTx()
		if err := it.Think(ctx, 50*time.Millisecond); err != nil {
			it.Done("think", s, err)
			return nil
		}
		it.Done("think", s, nil)
		return nil
	})
	res, err := Run(context.Background(), Config{Users: 4, RampUp: 200 * time.Millisecond, Steady: time.Second, RampDown: 100 * time.Millisecond}, w)
	if err != nil {
		t.Fatal(err)
	}
	tx, ok := res.Transaction("think")
	if !ok {
		t.Fatal("no think transaction")
	}
	// 4 users × 1 s / 50 ms ≈ 80 measured; allow scheduling slack but not a wrong window
	if tx.Pass < 60 || tx.Pass > 84 {
		t.Fatalf("measured %d passes in 1 s steady state with 4 users thinking 50 ms, want about 80", tx.Pass)
	}
	// The histogram keeps 3 significant digits: 50 ms may be recorded as 49.98 ms.
	if tx.MinMs < 49.9 || tx.P50Ms < 49.9 || tx.P50Ms > 80 {
		t.Fatalf("think time not honoured: min %v p50 %v", tx.MinMs, tx.P50Ms)
	}
	if iters.Load() <= tx.Pass {
		t.Fatalf("ramp phases ran no unmeasured iterations (%d total, %d measured)", iters.Load(), tx.Pass)
	}
	if res.Settings["users"] != 4 || res.SteadySeconds != 1 {
		t.Fatalf("settings %v steady %v", res.Settings, res.SteadySeconds)
	}
}

func TestIterationsLimitAndErrors(t *testing.T) {
	w := Func(func(ctx context.Context, it *Iteration) error {
		s := it.StartTx()
		if it.Number()%2 == 1 {
			it.Done("tx", s, metrics.Failf("odd", "iteration %d", it.Number()))
		} else {
			it.Done("tx", s, nil)
		}
		return nil
	})
	res, err := Run(context.Background(), Config{Users: 2, Iterations: 10, Steady: 2 * time.Second}, w)
	if err != nil {
		t.Fatal(err)
	}
	tx, _ := res.Transaction("tx")
	if tx.Pass != 10 || tx.Errors != 10 {
		t.Fatalf("pass %d errors %d, want 10 and 10", tx.Pass, tx.Errors)
	}
	if len(res.Errors) != 1 || res.Errors[0].Kind != "odd" || res.Errors[0].Count != 10 {
		t.Fatalf("errors %+v", res.Errors)
	}
}

// An arrival that finds MaxInFlight iterations running is dropped and counted, never silently
// delayed into a closed loop.
func TestOpenModelDrops(t *testing.T) {
	w := Func(func(ctx context.Context, it *Iteration) error {
		s := it.StartTx()
		err := it.Think(ctx, 200*time.Millisecond)
		it.Done("slow", s, err)
		return nil
	})
	res, err := Run(context.Background(), Config{Rate: 100, MaxInFlight: 5, Steady: time.Second, RampDown: 300 * time.Millisecond}, w)
	if err != nil {
		t.Fatal(err)
	}
	tx, _ := res.Transaction("slow")
	// 5 slots × 1 s / 200 ms ≈ 25 admitted, ≈ 75 dropped
	if res.Dropped < 50 || tx.Pass < 15 || tx.Pass > 35 {
		t.Fatalf("dropped %d passed %d; want about 75 dropped and 25 passed", res.Dropped, tx.Pass)
	}
}

// The original papers' own trap: a server that stalls. Open model at 2,000 requests/s against a server
// that stalls every request for 500 ms once every 5 s: requests queued behind the stall must be
// measured from their intended start, so p99 is near 450 ms (10% of requests wait 0–500 ms), not
// the few milliseconds a closed loop would report.
func TestOpenModelSeesStall(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("10 s load test at 2,000 requests/s; skipped with -short or -race (the race detector cannot offer that rate)")
	}
	epoch := time.Now()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		phase := time.Since(epoch) % (5 * time.Second)
		if phase < 500*time.Millisecond {
			time.Sleep(500*time.Millisecond - phase)
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2000, MaxConnsPerHost: 0}, Timeout: 5 * time.Second}
	w := Func(func(ctx context.Context, it *Iteration) error {
		s := it.StartTx()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		resp, err := client.Do(req)
		if err == nil {
			n, _ := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			it.Hit(s, resp.StatusCode, n)
		}
		it.Done("get", s, err)
		return nil
	})
	res, err := Run(context.Background(), Config{Rate: 2000, Steady: 10 * time.Second, RampDown: time.Second}, w)
	if err != nil {
		t.Fatal(err)
	}
	tx, _ := res.Transaction("get")
	t.Logf("count %d p50 %.2fms p90 %.2fms p99 %.2fms max %.1fms dropped %d late %d", tx.Count, tx.P50Ms, tx.P90Ms, tx.P99Ms, tx.MaxMs, res.Dropped, res.Late)
	if tx.Errors > 0 || tx.Pass < 15000 {
		t.Fatalf("errors %d passes %d", tx.Errors, tx.Pass)
	}
	// Above 450 ms by up to a few tens of ms on a quiet machine: the thousand requests queued in
	// the stall all open connections and complete at once when it ends. A shared 2-core CI
	// machine running other test packages alongside adds more; a hidden stall gives a few ms, a
	// latency measured from the wrong start would exceed the 500 ms stall by far more.
	if tx.P99Ms < 350 || tx.P99Ms > 650 {
		t.Fatalf("p99 = %.1f ms, want near 450 ms: the stall is hidden or mismeasured", tx.P99Ms)
	}
	if tx.P50Ms > 50 {
		t.Fatalf("p50 = %.1f ms: the median should be unaffected by a 10%% stall", tx.P50Ms)
	}
}

func TestInterruptedRunReturnsPartialResults(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	w := Func(func(ctx context.Context, it *Iteration) error {
		s := it.StartTx()
		err := it.Think(ctx, 10*time.Millisecond)
		it.Done("tx", s, err)
		return nil
	})
	res, err := Run(ctx, Config{Users: 2, RampUp: 200 * time.Millisecond, Steady: 10 * time.Second}, w)
	if err == nil || res == nil {
		t.Fatalf("want partial results and the context error, got %v", err)
	}
	if len(res.Notes) == 0 || res.SteadySeconds > 1 {
		t.Fatalf("notes %v steady %v", res.Notes, res.SteadySeconds)
	}
	if tx, _ := res.Transaction("tx"); tx.Pass == 0 || tx.Stop == 0 {
		t.Fatalf("tx %+v: want measured passes and stopped transactions", tx)
	}
}

func TestConfigValidation(t *testing.T) {
	for _, c := range []Config{{Users: 0, Steady: time.Second}, {Users: 1}, {Rate: -1, Steady: time.Second}, {Users: 1, Steady: time.Second, RampUp: -1}} {
		if _, err := Run(context.Background(), c, Func(func(context.Context, *Iteration) error { return nil })); err == nil {
			t.Fatalf("config %+v accepted", c)
		}
	}
}
