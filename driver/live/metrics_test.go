package live

import (
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/tradebench/tradebench/driver/load"
	"github.com/tradebench/tradebench/driver/recorder"
	"github.com/tradebench/tradebench/report"
)

func gather(t *testing.T, m *Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	fams, err := m.Registry().Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		out[f.GetName()] = f
	}
	return out
}

func find(f *dto.MetricFamily, labels ...string) *dto.Metric {
	for _, m := range f.GetMetric() {
		ok := true
		for i := 0; i+1 < len(labels); i += 2 {
			found := false
			for _, l := range m.GetLabel() {
				found = found || l.GetName() == labels[i] && l.GetValue() == labels[i+1]
			}
			ok = ok && found
		}
		if ok {
			return m
		}
	}
	return nil
}

// second builds a closed second the way the recorder closes it.
func second(phase string, users int, tx map[string][]time.Duration, fails int64) *load.Second {
	rec := recorder.NewRecorder(1)
	rec.KeepTxSeconds()
	t0 := time.Now()
	rec.SetWindow(t0, t0, t0.Add(time.Hour))
	for name, ds := range tx {
		for _, d := range ds {
			rec.Shard(0).Transaction(name, t0, d, nil)
		}
		for range fails {
			rec.Shard(0).Transaction(name, t0, time.Millisecond, recorder.Failf(recorder.CheckKindPrefix+"regex", "x"))
		}
	}
	p := rec.Tick(t0.Add(time.Second), phase, users)
	return &load.Second{Point: p, Hist: rec.SecondHistogram(), Tx: rec.TxSeconds()}
}

// TestMetricsFromSeconds feeds closed seconds and reads the registry as a scrape would: counts
// by transaction and outcome, latency in the classic buckets that hold it, the phase, and the
// verdict so far flipping when the measured window's error rate passes the run's limit.
// Mutants: a latency placed by its microseconds as seconds fails the bucket check; the errors
// rule compared the wrong way (rate >= limit passes) fails the first verdict.
func TestMetricsFromSeconds(t *testing.T) {
	m := New([]report.Threshold{report.MaxErrorRate(0.1)})
	m.Second(second("ramp-up", 2, map[string][]time.Duration{"login": {3 * time.Millisecond, 40 * time.Millisecond}}, 5))
	m.Second(second("steady", 2, map[string][]time.Duration{"login": {3 * time.Millisecond}, "buy": {time.Second}}, 0))
	f := gather(t, m)
	if v := find(f["tradebench_driver_transactions_total"], "transaction", "login", "outcome", "pass").GetCounter().GetValue(); v != 3 {
		t.Errorf("login passed %v, want 3", v)
	}
	if v := find(f["tradebench_driver_check_failures_total"], "transaction", "login").GetCounter().GetValue(); v != 5 {
		t.Errorf("login check failures %v, want 5", v)
	}
	if v := find(f["tradebench_driver_check_failures_total"], "transaction", "buy"); v == nil || v.GetCounter().GetValue() != 0 {
		t.Errorf("buy check failures %v, want a series at 0", v)
	}
	h := find(f["tradebench_driver_transaction_duration_seconds"], "transaction", "login").GetHistogram()
	if h.GetSampleCount() != 3 {
		t.Fatalf("login latency count %d, want 3", h.GetSampleCount())
	}
	for _, b := range h.GetBucket() {
		want := uint64(0)
		switch {
		case b.GetUpperBound() >= 0.05: // 40 ms is in (0.03, 0.05]
			want = 3
		case b.GetUpperBound() >= 0.003: // 3 ms is in (0.002, 0.003]
			want = 2
		}
		if b.GetCumulativeCount() != want {
			t.Errorf("login le=%g: %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), want)
		}
	}
	if v := find(f["tradebench_driver_phase"], "phase", "steady").GetGauge().GetValue(); v != 1 {
		t.Errorf("phase steady %v", v)
	}
	if v := find(f["tradebench_driver_verdict"], "rule", ErrorsRule).GetGauge().GetValue(); v != 1 {
		t.Errorf("errors rule %v with no failure in the measured window (the ramp-up's do not count), want 1", v)
	}
	// 1 failure out of 4 in the window: 25 % > 10 %
	m.Second(second("steady", 2, map[string][]time.Duration{"buy": {time.Millisecond}}, 1))
	f = gather(t, m)
	if v := find(f["tradebench_driver_verdict"], "rule", ErrorsRule).GetGauge().GetValue(); v != 0 {
		t.Errorf("errors rule %v at a 25%% error rate, limit 10%%", v)
	}
	if v := find(f["tradebench_driver_verdict"], "rule", "max_error_rate").GetGauge().GetValue(); v != 0 {
		t.Errorf("max_error_rate %v at a 25%% error rate, limit 10%%", v)
	}
	if v := f["tradebench_driver_error_ratio"].GetMetric()[0].GetGauge().GetValue(); v != 0.25 {
		t.Errorf("error ratio %v, want 1/4", v)
	}
	m.Done(nil)
	if v := find(gather(t, m)["tradebench_driver_phase"], "phase", "done").GetGauge().GetValue(); v != 1 {
		t.Errorf("phase done %v after Done", v)
	}
}

func TestBucketOf(t *testing.T) {
	for _, c := range []struct{ v, lo, hi float64 }{{0.00005, 0, 0.0001}, {0.0001, 0, 0.0001}, {0.004, 0.003, 0.005}, {61, 60, 0}} {
		lo, hi := BucketOf(c.v)
		if lo != c.lo || (c.hi != 0 && hi != c.hi) || (c.hi == 0 && hi < 1e300) {
			t.Errorf("BucketOf(%v) = %v, %v; want %v, %v", c.v, lo, hi, c.lo, c.hi)
		}
	}
}
