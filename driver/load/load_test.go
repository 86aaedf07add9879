package load

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tradebench/tradebench/driver/recorder"
	"github.com/tradebench/tradebench/internal/testing/racetest"
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
	// The histogram keeps 3 significant digits: 50 ms may be recorded as 49.98 ms. A busy
	// machine oversleeps, so there is no upper bound on the think time itself.
	if tx.MinMs < 49.9 || tx.P50Ms < 49.9 {
		t.Fatalf("think time not honoured: min %v p50 %v", tx.MinMs, tx.P50Ms)
	}
	// Only the 1 s steady state is measured: 4 users × 1 s / 50 ms ≈ 80 passes on a quiet
	// machine, never more than 4 × 1 s / 50 ms + one straddling iteration per user (a wrong,
	// wider window counts more). On a busy machine each think takes longer, so the lower
	// bound follows the iterations' own mean: 4 users × 1 s / mean, less one per user.
	want := 4 * 1000 / tx.MeanMs
	if float64(tx.Pass) < want-8 || tx.Pass > 84 {
		t.Fatalf("measured %d passes in 1 s steady state with 4 users thinking 50 ms (mean %.1f ms), want about %.0f and at most 84", tx.Pass, tx.MeanMs, want)
	}
	if iters.Load() <= tx.Pass {
		t.Fatalf("ramp phases ran no unmeasured iterations (%d total, %d measured)", iters.Load(), tx.Pass)
	}
	if res.Settings.Users != 4 || res.SteadySeconds != 1 {
		t.Fatalf("settings %v steady %v", res.Settings, res.SteadySeconds)
	}
}

func TestIterationsLimitAndErrors(t *testing.T) {
	w := Func(func(ctx context.Context, it *Iteration) error {
		s := it.StartTx()
		if it.Number()%2 == 1 {
			it.Done("tx", s, recorder.Failf("odd", "iteration %d", it.Number()))
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
// the few milliseconds a closed loop would report. (Every arrival here gets its own goroutine and
// connection at once, so this test does not tell the intended start from the real one; the tests
// below do.)
func TestOpenModelSeesStall(t *testing.T) {
	if testing.Short() || racetest.Enabled {
		t.Skip("10 s load test at 500 requests/s; skipped with -short or -race (the race detector cannot offer that rate)")
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
	// A long client timeout: on a busy machine a request may queue for seconds, which is
	// latency to measure, not an error.
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2000, MaxConnsPerHost: 0}, Timeout: 60 * time.Second}
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
	res, err := Run(context.Background(), Config{Rate: 500, Steady: 10 * time.Second, RampDown: time.Second}, w)
	if err != nil {
		t.Fatal(err)
	}
	tx, _ := res.Transaction("get")
	t.Logf("count %d p50 %.2fms p90 %.2fms p99 %.2fms max %.1fms dropped %d late %d", tx.Count, tx.P50Ms, tx.P90Ms, tx.P99Ms, tx.MaxMs, res.Dropped, res.Late)
	// 5,000 arrivals are due in the 10 s window; the last ones may still be running at its end.
	if tx.Errors > 0 || tx.Pass < 4000 {
		t.Fatalf("errors %d passes %d", tx.Errors, tx.Pass)
	}
	// Near 450 ms on a quiet machine: 10% of the requests arrive during a 500 ms stall and wait
	// out its rest. Only the lower bound is asserted, which a busy machine cannot break (being
	// late only adds to a latency measured from the intended start); a hidden stall gives a few
	// ms. How far above it lands depends on the machine's load (766 ms was seen on a 2-core
	// machine running several test packages at once), so there is no upper bound: measuring from
	// the right start is proved exactly by TestOpenModelStartsOnSchedule and
	// TestOpenModelCountsQueueingForConnection.
	if tx.P99Ms < 350 {
		t.Fatalf("p99 = %.1f ms, want near 450 ms: the stall is hidden", tx.P99Ms)
	}
	// The stall is in the tail, not the median: relative to the tail, so a slow machine, which
	// shifts both, cannot break it.
	if tx.P50Ms > tx.P99Ms/2 {
		t.Fatalf("p50 = %.1f ms against p99 %.1f ms: the median should be unaffected by a 10%% stall", tx.P50Ms, tx.P99Ms)
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

// StartTx is the intended-start bookkeeping: in the open model the first transaction of an
// iteration starts when the iteration was scheduled to start, however late it really began; later
// transactions of the same iteration, and every transaction of the closed model, start now.
// Catches the mutant "StartTx returns time.Now()" (checked by hand: "first StartTx = … want the
// intended start …").
func TestStartTxIntendedStart(t *testing.T) {
	intended := time.Now().Add(-time.Second) // this iteration began a second late
	it := &Iteration{intended: intended}
	if got := it.StartTx(); !got.Equal(intended) {
		t.Fatalf("first StartTx = %v, want the intended start %v", got, intended)
	}
	if got := it.StartTx(); got.Sub(intended) < time.Second {
		t.Fatalf("second StartTx = %v, want now (a second after the intended start %v)", got, intended)
	}
	closed := &Iteration{}
	before := time.Now()
	if got := closed.StartTx(); got.Before(before) {
		t.Fatalf("closed model StartTx = %v, want now (not before %v)", got, before)
	}
}

// The open model's schedule is exact: at 100 iterations per second, iteration n's first
// transaction starts exactly n×10 ms after iteration 0's, whenever the goroutine that runs it
// was really scheduled. Bounded by behaviour, not speed: the engine computes each intended start
// from the schedule, so the only tolerance is the 1 µs of float rounding in that computation; a
// start taken from the clock (the mutant "StartTx returns time.Now()", checked by hand: "iteration
// 1 started … after iteration 0, want exactly 10ms") jitters by the timer's and scheduler's
// wake-up delay, never below a microsecond on every one of 100 arrivals.
func TestOpenModelStartsOnSchedule(t *testing.T) {
	const rate, n = 100, 100
	var mu sync.Mutex
	starts := make(map[int64]time.Time, n)
	w := Func(func(ctx context.Context, it *Iteration) error {
		s := it.StartTx()
		mu.Lock()
		starts[it.Number()] = s
		mu.Unlock()
		it.Done("tx", s, nil)
		return nil
	})
	res, err := Run(context.Background(), Config{Rate: rate, Steady: time.Second, RampDown: 30 * time.Second}, w)
	if err != nil {
		t.Fatal(err)
	}
	if len(starts) != n {
		t.Fatalf("%d arrivals in 1 s at %d/s, want exactly %d", len(starts), rate, n)
	}
	for k := int64(1); k < n; k++ {
		got, want := starts[k].Sub(starts[0]), time.Duration(k)*time.Second/rate
		if d := got - want; d < -time.Microsecond || d > time.Microsecond {
			t.Fatalf("iteration %d started %v after iteration 0, want exactly %v", k, got, want)
		}
	}
	if tx, _ := res.Transaction("tx"); tx.Pass != n {
		t.Fatalf("measured %d transactions, want all %d (every intended start is in the steady state)", tx.Pass, n)
	}
}

// Coordinated omission where a request cannot start on time: the client has one keep-alive TCP
// connection, and an iteration must first get it (as a client with a fixed number of connections
// does) before its transaction starts. The server stalls the first request until all 100 arrivals
// of the run (100/s for 1 s) are waiting for the connection, so arrival i waits at least
// (99−i)×10 ms before its request can even be sent. Latency measured from the intended start must
// include that wait: half the arrivals waited ≥ 490 ms, so p50 ≥ 490 ms and max ≥ 990 ms by
// construction, however slow the machine (a slow machine only adds to them). Measured from when
// the connection was free (the mutant "StartTx returns time.Now()", checked by hand: "p50 = 0.0 ms,
// max = 990.7 ms …: the wait for the connection is hidden"), each queued request shows only its own round trip
// on a local connection, far under the 450 ms bound.
func TestOpenModelCountsQueueingForConnection(t *testing.T) {
	const rate, n = 100, 100
	release := make(chan struct{})
	var first atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if first.CompareAndSwap(false, true) {
			select { // the stall; the timeout only keeps a broken run from hanging the test
			case <-release:
			case <-time.After(time.Minute):
			}
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()

	type conn struct {
		c  net.Conn
		br *bufio.Reader
	}
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pool := make(chan conn, 1)
	pool <- conn{c, bufio.NewReader(c)}

	var waiting atomic.Int64
	w := Func(func(ctx context.Context, it *Iteration) error {
		if waiting.Add(1) == n { // every arrival is here: end the stall
			close(release)
		}
		var cn conn
		select {
		case cn = <-pool:
		case <-ctx.Done():
			return nil
		}
		defer func() { pool <- cn }()
		s := it.StartTx()
		_, err := io.WriteString(cn.c, "GET / HTTP/1.1\r\nHost: tradebench\r\n\r\n")
		var resp *http.Response
		if err == nil {
			resp, err = http.ReadResponse(cn.br, nil)
		}
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(b) != "ok" {
				err = recorder.Failf("content", "body %q", b)
			}
		}
		it.Done("get", s, err)
		return nil
	})
	res, err := Run(context.Background(), Config{Rate: rate, Steady: time.Second, RampDown: 30 * time.Second}, w)
	if err != nil {
		t.Fatal(err)
	}
	tx, _ := res.Transaction("get")
	t.Logf("count %d p50 %.1fms p99 %.1fms max %.1fms", tx.Count, tx.P50Ms, tx.P99Ms, tx.MaxMs)
	if tx.Pass != n || tx.Errors != 0 {
		t.Fatalf("passed %d, errors %d; want all %d arrivals measured and passed", tx.Pass, tx.Errors, n)
	}
	if tx.P50Ms < 450 || tx.MaxMs < 950 {
		t.Fatalf("p50 = %.1f ms, max = %.1f ms, want ≥ 490 ms and ≥ 990 ms: the wait for the connection is hidden", tx.P50Ms, tx.MaxMs)
	}
}
