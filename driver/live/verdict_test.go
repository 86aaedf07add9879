package live

import (
	"testing"
	"time"

	"github.com/tradebench/tradebench/report"
)

func verdictOf(t *testing.T, m *Metrics, rule string) float64 {
	t.Helper()
	v := find(gather(t, m)["tradebench_driver_verdict"], "rule", rule)
	if v == nil {
		t.Fatalf("no verdict series for rule %q", rule)
	}
	return v.GetGauge().GetValue()
}

// The live errors rule judges by the run's own max_error_rate when it sets one: 5 % errors
// under a 10 % limit is passing (under the default 0.01 % it would not be).
// Mutant live-errors-own-limit-ignored: New keeping DefaultMaxErrorRate whatever the run's
// max_error_rate threshold says.
func TestLiveErrorsRuleUsesRunsLimit(t *testing.T) {
	ms := make([]time.Duration, 19)
	for i := range ms {
		ms[i] = time.Millisecond
	}
	m := New([]report.Threshold{report.MaxErrorRate(0.1)})
	m.Second(second("steady", 20, map[string][]time.Duration{"buy": ms}, 1)) // 1 of 20: 5 %
	if v := verdictOf(t, m, ErrorsRule); v != 1 {
		t.Errorf("errors rule %v at 5%% errors under the run's 10%% limit, want 1", v)
	}
	// without a threshold, the default 0.01 % applies: 5 % fails it
	d := New(nil)
	d.Second(second("steady", 20, map[string][]time.Duration{"buy": ms}, 1))
	if v := verdictOf(t, d, ErrorsRule); v != 0 {
		t.Errorf("errors rule %v at 5%% errors under the default 0.01%%, want 0", v)
	}
}

// A latency threshold is judged live on the measured window's own percentiles: 50 ms
// transactions against a 10 ms p90 bound read as failing while the run goes on, and the p90 and
// p99 the rule reads are the window's, merged over its seconds.
// Mutant live-steady-hist-unmerged: the seconds' histograms not merged into the measured
// window's (the live p90 and p99 read 0: every latency bound passes).
func TestLiveLatencyThresholdFromWindow(t *testing.T) {
	m := New([]report.Threshold{report.MaxP90Ms(10), report.MaxP99Ms(1000)})
	for range 3 {
		m.Second(second("steady", 5, map[string][]time.Duration{"buy": {50 * time.Millisecond, 50 * time.Millisecond, 2 * time.Millisecond}}, 0))
	}
	if v := verdictOf(t, m, "max_p90_ms"); v != 0 {
		t.Errorf("max_p90_ms %v with a p90 of 50 ms against a 10 ms bound, want 0", v)
	}
	if v := verdictOf(t, m, "max_p99_ms"); v != 1 {
		t.Errorf("max_p99_ms %v with a p99 of 50 ms against a 1 s bound, want 1", v)
	}
	if p90 := m.steady.Total.P90Ms; p90 < 49 || p90 > 51 {
		t.Errorf("the window's live p90 is %v ms, want 50", p90)
	}
}

// When the run ends the live verdict is the final results' own, not the last second's: a
// window that looked clean live but whose final results count 5 % errors (late failures merged
// from the agents, say) ends failing.
// Mutant live-done-ignores-results: Done not setting the errors rule from the final results.
func TestLiveDoneTakesFinalVerdict(t *testing.T) {
	m := New(nil)
	m.Second(second("steady", 2, map[string][]time.Duration{"buy": {time.Millisecond}}, 0))
	if v := verdictOf(t, m, ErrorsRule); v != 1 {
		t.Fatalf("errors rule %v with no failures live, want 1", v)
	}
	res := report.New("http")
	res.Total = report.Transaction{Name: "total", Count: 100, Pass: 95, Errors: 5}
	m.Done(res)
	if v := verdictOf(t, m, ErrorsRule); v != 0 {
		t.Errorf("errors rule %v after Done with 5%% errors in the final results, want 0", v)
	}
	if v := find(gather(t, m)["tradebench_driver_error_ratio"]).GetGauge().GetValue(); v != 0.05 {
		t.Errorf("error ratio %v after Done, want the final 0.05", v)
	}
}
