package recorder

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tradebench/tradebench/report"
)

// The merged per-transaction histogram must equal one histogram fed every sample, bucket for
// bucket: percentiles are merged exactly, never averaged.
func TestMergeEqualsSingleHistogram(t *testing.T) {
	rec := NewRecorder(8)
	t0 := time.Now()
	rec.SetWindow(t0, t0, t0.Add(time.Hour))
	want := NewHistogram()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 7))
			sh := rec.Shard(g)
			for i := 0; i < 5000; i++ {
				d := time.Duration(r.ExpFloat64()*20_000) * time.Microsecond
				sh.Transaction("tx", t0, d, nil)
				mu.Lock()
				Record(want, d)
				mu.Unlock()
			}
		}(g)
	}
	wg.Wait()
	m := rec.Merged()["tx"]
	if !m.Hist.Equals(want) {
		t.Fatalf("merged histogram differs from the single histogram: merged p99=%d single p99=%d", m.Hist.ValueAtQuantile(99), want.ValueAtQuantile(99))
	}
	if m.Pass != 80000 {
		t.Fatalf("pass = %d, want 80000", m.Pass)
	}
	res := report.New("t")
	rec.Fill(res, 10)
	tx, _ := res.Transaction("tx")
	if tx.P99Ms != float64(want.ValueAtQuantile(99))/1000 || tx.TPS != 8000 {
		t.Fatalf("summary p99 %v tps %v, want %v and 8000", tx.P99Ms, tx.TPS, float64(want.ValueAtQuantile(99))/1000)
	}
}

func TestWindowOutcomesAndErrors(t *testing.T) {
	rec := NewRecorder(2)
	t0 := time.Now()
	rec.SetWindow(t0, t0.Add(time.Second), t0.Add(2*time.Second))
	sh := rec.Shard(0)
	sh.Transaction("a", t0, time.Millisecond, nil)                            // ramp-up: not measured
	sh.Transaction("a", t0.Add(1500*time.Millisecond), time.Millisecond, nil) // measured pass
	sh.Transaction("a", t0.Add(1500*time.Millisecond), time.Millisecond, Failf("check", "status 500 from /x/1"))
	rec.Shard(1).Transaction("a", t0.Add(1600*time.Millisecond), time.Millisecond, Failf("check", "status 500 from /x/2"))
	sh.Transaction("a", t0.Add(1500*time.Millisecond), time.Millisecond, context.Canceled)
	sh.Transaction("a", t0.Add(1500*time.Millisecond), time.Millisecond, errors.New("boom"))
	sh.Hit(t0.Add(1500*time.Millisecond), 200, 100)
	sh.Hit(t0.Add(1500*time.Millisecond), 0, 0)
	sh.Hit(t0, 200, 100) // ramp-up
	rec.Shard(1).Hit(t0.Add(1500*time.Millisecond), 200, 0)
	rec.Shard(1).Hit(t0.Add(1500*time.Millisecond), 1000, 0) // no such HTTP status, still counted
	res := report.New("t")
	rec.Fill(res, 1)
	a, _ := res.Transaction("a")
	if a.Pass != 1 || a.Errors != 3 || a.Stop != 1 || a.Count != 4 {
		t.Fatalf("got pass %d errors %d stop %d count %d", a.Pass, a.Errors, a.Stop, a.Count)
	}
	if len(res.Errors) != 2 || res.Errors[0].Kind != "check" || res.Errors[0].Count != 2 || res.Errors[0].Example != "check: status 500 from /x/1" {
		t.Fatalf("error groups: %+v", res.Errors)
	}
	if res.Hits != 4 || res.Bytes != 100 || res.StatusCodes["200"] != 2 || res.StatusCodes["no response"] != 1 ||
		res.StatusCodes["1000"] != 1 || len(res.StatusCodes) != 3 {
		t.Fatalf("hits %d bytes %d codes %v", res.Hits, res.Bytes, res.StatusCodes)
	}
	p := rec.Tick(t0.Add(2*time.Second), "steady", 3)
	if p.TPS != 2 || p.Errors != 3 || p.Hits != 5 || p.Users != 3 || p.Second != 2 {
		t.Fatalf("series point %+v", p)
	}
	if p2 := rec.Tick(t0.Add(3*time.Second), "steady", 3); p2.TPS != 0 || p2.Hits != 0 {
		t.Fatalf("tick did not reset: %+v", p2)
	}
}

// TestTxSeconds: a watched recorder closes each second per transaction across shards — outcomes,
// content-check failures, latency, bytes of every phase — and starts the next second at zero;
// an unwatched one keeps none of it.
// Mutants: not resetting the shard's second in addTxSecond fails the second Tick; counting
// every failure as a check failure fails the check count.
func TestTxSeconds(t *testing.T) {
	rec := NewRecorder(3)
	rec.KeepTxSeconds()
	t0 := time.Now()
	rec.SetWindow(t0, t0.Add(time.Second), t0.Add(10*time.Second))
	rec.Shard(0).Transaction("a", t0, 2*time.Millisecond, nil) // ramp-up counts live
	rec.Shard(1).Transaction("a", t0, 4*time.Millisecond, nil)
	rec.Shard(2).Transaction("a", t0, time.Millisecond, Failf(CheckKindPrefix+"contains", "no"))
	rec.Shard(2).Transaction("a", t0, time.Millisecond, errors.New("reset"))
	rec.Shard(0).Transaction("b", t0, time.Millisecond, context.Canceled)
	rec.Shard(1).Hit(t0, 200, 300)
	rec.Shard(2).Hit(t0.Add(2*time.Second), 200, 40)
	rec.Tick(t0.Add(time.Second), "ramp-up", 2)
	got := map[string]TxSecond{}
	for _, s := range rec.TxSeconds() {
		got[s.Name] = *s
	}
	a, b := got["a"], got["b"]
	if a.Pass != 2 || a.Fail != 2 || a.CheckFailures != 1 || a.Stop != 0 || a.Hist.TotalCount() != 2 || a.Hist.Max() < 3990 {
		t.Errorf("a: %+v (max %d µs)", a, a.Hist.Max())
	}
	if b.Stop != 1 || b.Pass != 0 || b.Hist.TotalCount() != 0 {
		t.Errorf("b: %+v", b)
	}
	if rec.Bytes() != 340 {
		t.Errorf("bytes %d, want 340 (every phase)", rec.Bytes())
	}
	rec.Tick(t0.Add(2*time.Second), "steady", 2)
	for _, s := range rec.TxSeconds() {
		if s.Pass+s.Fail+s.Stop+s.CheckFailures != 0 || s.Hist.TotalCount() != 0 {
			t.Errorf("%s after an empty second: %+v", s.Name, *s)
		}
	}

	plain := NewRecorder(1)
	plain.SetWindow(t0, t0, t0.Add(time.Second))
	plain.Shard(0).Transaction("a", t0, time.Millisecond, nil)
	plain.Shard(0).Hit(t0, 200, 10)
	plain.Tick(t0.Add(time.Second), "steady", 1)
	if plain.TxSeconds() != nil || plain.Bytes() != 0 {
		t.Errorf("an unwatched recorder kept seconds per transaction: %v, %d bytes", plain.TxSeconds(), plain.Bytes())
	}
}

// TestFirstSeenOrderPerRecorder: transactions are listed in the order the run first met them,
// whichever shard met them, and each recorder numbers its own (no counter shared by the runs of
// one process). Mutants: nextOrder returning a constant lists the names alphabetically (the
// sort's tie order is not first-seen); a package-level counter makes the second recorder start
// past 1.
func TestFirstSeenOrderPerRecorder(t *testing.T) {
	t0 := time.Now()
	for run := 0; run < 2; run++ {
		rec := NewRecorder(3)
		rec.SetWindow(t0, t0, t0.Add(time.Hour))
		for i, name := range []string{"zeta", "alpha", "mid"} {
			rec.Shard(i).Transaction(name, t0.Add(time.Second), time.Millisecond, nil)
		}
		res := report.New("")
		rec.Fill(res, 1)
		var got []string
		for _, tx := range res.Transactions {
			got = append(got, tx.Name)
		}
		if len(got) != 3 || got[0] != "zeta" || got[1] != "alpha" || got[2] != "mid" {
			t.Fatalf("run %d: transactions %v, want zeta, alpha, mid", run, got)
		}
		if n := rec.order.Load(); n != 3 {
			t.Fatalf("run %d: the recorder numbered %d names, want its own 3", run, n)
		}
	}
}

// TestMergeTransaction: the one rule for merging a transaction's histogram that travelled: a
// good one adds its samples; one that does not decode, or holds fewer samples than the
// transaction passed, or is missing while it passed, is an error. Mutants: ignoring the decode
// error (an easy slip for a caller that merges points) merges nothing and returns nil; dropping the count check
// accepts the short histogram.
func TestMergeTransaction(t *testing.T) {
	h := NewHistogram()
	for i := 1; i <= 4; i++ {
		Record(h, time.Duration(i)*time.Millisecond)
	}
	enc, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	into := NewHistogram()
	if err := MergeTransaction(into, report.Transaction{Name: "tx", Pass: 4, Histogram: string(enc)}); err != nil || into.TotalCount() != 4 {
		t.Fatalf("a good histogram: %v, %d samples", err, into.TotalCount())
	}
	for _, bad := range []report.Transaction{
		{Name: "corrupt", Pass: 1, Histogram: "HISTFAAAAB" + string(enc[10:20])},
		{Name: "short", Pass: 5, Histogram: string(enc)},
		{Name: "missing", Pass: 1},
	} {
		if err := MergeTransaction(NewHistogram(), bad); err == nil || !strings.Contains(err.Error(), bad.Name) {
			t.Errorf("%s: %v, want an error naming the transaction", bad.Name, err)
		}
	}
	if err := MergeTransaction(into, report.Transaction{Name: "idle"}); err != nil {
		t.Errorf("a transaction with no passes and no histogram: %v", err)
	}
}

// Each second of the series carries each transaction's passed count and latency, merged across
// shards; failed transactions' latency is kept apart from the passed histogram. Mutants: Tick
// not resetting a shard's per-transaction histogram (the second second counts the first's
// transactions again) fails; recording a failure into the passed histogram fails.
func TestPerTransactionSecondsAndFailedLatency(t *testing.T) {
	rec := NewRecorder(2)
	t0 := time.Now()
	rec.SetWindow(t0, t0, t0.Add(time.Hour))
	for i, d := range []time.Duration{time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond} {
		rec.Shard(i).Transaction("a", t0, d, nil)
	}
	rec.Shard(0).Transaction("b", t0, 7*time.Millisecond, nil)
	rec.Shard(1).Transaction("a", t0, 500*time.Millisecond, errors.New("status 500"))
	p := rec.Tick(t0.Add(time.Second), "steady", 2)
	if len(p.Transactions) != 2 || p.Transactions[0].Name != "a" || p.Transactions[0].TPS != 3 || p.Transactions[1].TPS != 1 ||
		p.Transactions[1].P50Ms < 6.9 || p.Transactions[1].P50Ms > 7.1 {
		t.Fatalf("first second: %+v", p.Transactions)
	}
	rec.Shard(1).Transaction("b", t0, 7*time.Millisecond, nil)
	p = rec.Tick(t0.Add(2*time.Second), "steady", 2)
	if len(p.Transactions) != 1 || p.Transactions[0].Name != "b" || p.Transactions[0].TPS != 1 {
		t.Fatalf("second second: %+v", p.Transactions)
	}
	var res report.Results
	rec.Fill(&res, 2)
	a := res.Transactions[0]
	if a.Name != "a" || a.Failed == nil || a.Failed.Count != 1 || a.Failed.P50Ms < 499 || a.Failed.P50Ms > 501 || a.MaxMs > 3.1 {
		t.Fatalf("transaction a: max %v ms, failed %+v; want the 500 ms failure apart", a.MaxMs, a.Failed)
	}
	if res.Transactions[1].Failed != nil {
		t.Errorf("b never failed: %+v", res.Transactions[1].Failed)
	}
}
