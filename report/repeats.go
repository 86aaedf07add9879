package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tradebench/tradebench/report/stats"
)

// Repeat is one run of a repeated measurement: what is needed to compare it with another's
// runs metric by metric (the headline numbers and each transaction's, without histograms).
type Repeat struct {
	Run           int           `json:"run"` // 1-based
	StartedAt     time.Time     `json:"started_at"`
	EndedAt       time.Time     `json:"ended_at"`
	SteadySeconds float64       `json:"steady_seconds"`
	Total         Transaction   `json:"total"`
	Transactions  []Transaction `json:"transactions,omitempty"`
	HitsPerSec    float64       `json:"hits_per_sec"`
	// Seed is the run's random seed (each run of a repeat draws its own unless one is given).
	Seed uint64 `json:"seed,omitempty"`
	// Verdict is this run's own verdict (valid, invalid, inconclusive): the results' validity
	// is the last run's, so an earlier invalid run shows here.
	Verdict string `json:"verdict,omitempty"`
	// PeakTPS, PeakTPSHalf, PeakUsers and PeakRate are a repeated capacity search's capacity
	// in this run (run --repeat N repeats the whole search).
	PeakTPS     float64 `json:"peak_tps,omitempty"`
	PeakTPSHalf float64 `json:"peak_tps_half,omitempty"`
	PeakUsers   int     `json:"peak_users,omitempty"`
	PeakRate    float64 `json:"peak_rate,omitempty"`
}

// RepeatOf records one run's headline numbers for Results.Repeats.
func RepeatOf(n int, r *Results) Repeat {
	rep := Repeat{Run: n, StartedAt: r.StartedAt, EndedAt: r.EndedAt, SteadySeconds: r.SteadySeconds,
		Total: r.Total, HitsPerSec: r.HitsPerSec, Seed: r.Settings.Seed}
	rep.Total.Histogram = ""
	if r.Validity != nil {
		rep.Verdict = r.Validity.Verdict
	}
	if p := r.Peak; p != nil {
		rep.PeakTPS, rep.PeakTPSHalf, rep.PeakUsers, rep.PeakRate = p.PeakTPS, p.PeakTPSHalf, p.PeakUsers, p.PeakRate
	}
	for _, t := range r.Transactions {
		t.Histogram = ""
		rep.Transactions = append(rep.Transactions, t)
	}
	return rep
}

// Metric is one headline number a comparison tests: read from a run's totals, and second by
// second from its series (for single runs, compared by batch means).
type Metric struct {
	Name string
	Unit string
	// HigherBetter says which way is an improvement.
	HigherBetter bool
	// Of reads the metric from a run's totals.
	Of func(t Transaction, hitsPerSec float64) float64
	// PerSecond reads it from one second of the series (nil: the series has no such value).
	PerSecond func(p SeriesPoint) float64
	// Percentile is the latency percentile the metric is (50, 90, 99; 0: not a percentile): a
	// percentile is shown only where its window had enough samples (EnoughSamples).
	Percentile float64
}

// Headline metrics, in the order pages show them.
var (
	MetricTPS = Metric{Name: "Steady-state TPS", Unit: "TPS", HigherBetter: true,
		Of:        func(t Transaction, _ float64) float64 { return t.TPS },
		PerSecond: func(p SeriesPoint) float64 { return p.TPS }}
	MetricErrorRate = Metric{Name: "Error rate", Unit: "%",
		Of: func(t Transaction, _ float64) float64 {
			if t.Count == 0 {
				return 0
			}
			return float64(t.Errors) / float64(t.Count)
		},
		PerSecond: func(p SeriesPoint) float64 {
			if n := p.TPS + float64(p.Errors); n > 0 {
				return float64(p.Errors) / n
			}
			return 0
		}}
	MetricP50 = Metric{Name: "p50 (ms)", Unit: "ms", Percentile: 50, Of: func(t Transaction, _ float64) float64 { return t.P50Ms },
		PerSecond: func(p SeriesPoint) float64 { return p.P50Ms }}
	MetricP90 = Metric{Name: "p90 (ms)", Unit: "ms", Percentile: 90, Of: func(t Transaction, _ float64) float64 { return t.P90Ms },
		PerSecond: func(p SeriesPoint) float64 { return p.P90Ms }}
	MetricP99 = Metric{Name: "p99 (ms)", Unit: "ms", Percentile: 99, Of: func(t Transaction, _ float64) float64 { return t.P99Ms },
		PerSecond: func(p SeriesPoint) float64 { return p.P99Ms }}
	MetricHits = Metric{Name: "Hits/s", Unit: "hits/s", HigherBetter: true, Of: func(_ Transaction, h float64) float64 { return h },
		PerSecond: func(p SeriesPoint) float64 { return float64(p.Hits) }}
)

// HeadlineMetrics are the metrics a comparison tests, in order.
var HeadlineMetrics = []Metric{MetricTPS, MetricErrorRate, MetricP50, MetricP90, MetricP99, MetricHits}

// RunValues is the metric in each run of a repeated measurement (one value for a single run).
func (r *Results) RunValues(m Metric) []float64 {
	if len(r.Repeats) == 0 {
		return []float64{m.Of(r.Total, r.HitsPerSec)}
	}
	out := make([]float64, len(r.Repeats))
	for i, rep := range r.Repeats {
		out[i] = m.Of(rep.Total, rep.HitsPerSec)
	}
	return out
}

// SteadySeries is the metric in each second of the steady state (seconds with no passed
// transaction have no latency and are left out of latency series).
func (r *Results) SteadySeries(m Metric) []float64 {
	var out []float64
	for _, p := range r.Series {
		if p.Phase != "steady" {
			continue
		}
		if m.Unit == "ms" && p.TPS == 0 {
			continue
		}
		out = append(out, m.PerSecond(p))
	}
	return out
}

// Compare tests whether a metric differs between a baseline and another run: across runs with
// benchstat's U test when both were repeated, else from the steady-state series by batch means.
func Compare(base, other *Results, m Metric) stats.Comparison {
	if len(base.Repeats) > 1 && len(other.Repeats) > 1 {
		return stats.CompareRuns(base.RunValues(m), other.RunValues(m))
	}
	return stats.CompareSeries(base.SteadySeries(m), other.SteadySeries(m))
}

// Name is the run's name: its --label, or the workload, scenario and key settings.
func (r *Results) Name() string {
	if r.Label != "" {
		return r.Label
	}
	return DefaultLabel(r)
}

// DefaultLabel names a run by its workload (or scenario) and the settings that set its load:
// "stocktrader 50 users", "http quick 200/s".
func DefaultLabel(r *Results) string {
	parts := []string{r.Workload}
	if r.Scenario != "" {
		parts = []string{r.Scenario}
	}
	if r.Settings.Mode != "" && r.Settings.Mode != parts[len(parts)-1] { // quick mode's scenario is "quick" too
		parts = append(parts, r.Settings.Mode)
	}
	switch {
	case r.Settings.Rate > 0:
		parts = append(parts, strconv.FormatFloat(r.Settings.Rate, 'f', -1, 64)+"/s")
	case r.Settings.Users > 0:
		parts = append(parts, strconv.Itoa(r.Settings.Users)+" users")
	}
	if r.Settings.Think != "" && r.Settings.Think != "0" && r.Settings.Think != "0s" {
		parts = append(parts, "think "+r.Settings.Think)
	}
	if len(r.Repeats) > 1 {
		parts = append(parts, "×"+strconv.Itoa(len(r.Repeats)))
	}
	return strings.Join(parts, " ")
}

// ShellLine writes a command line as one would type it into a shell: each argument quoted only
// where the shell needs it, and the program by the name it was called by — a binary built by
// 'go run' into a temporary directory is shown as its base name.
func ShellLine(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if i == 0 && (strings.Contains(a, "go-build") || strings.HasPrefix(a, "/tmp/")) {
			a = filepath.Base(a)
		}
		out[i] = shellQuote(a)
	}
	return strings.Join(out, " ")
}

func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./:=,+@%", c)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// WriteRepeats prints, for a repeated measurement, each headline metric over the runs as
// benchstat does: the median, its 95 % confidence interval and the range; a percentile only
// where every run had enough samples for it (else "—", not enough samples); and a repeated
// capacity search's capacity over the searches.
func (r *Results) WriteRepeats(w io.Writer) {
	if len(r.Repeats) < 2 {
		return
	}
	fmt.Fprintf(w, "\n%s — %d runs: median [95 %% confidence interval] (min – max)\n", r.Name(), len(r.Repeats))
	if caps := r.Capacities(); caps != nil {
		s := stats.Summarize(caps)
		f := func(v float64) string { return FormatMetric(MetricTPS, v) }
		fmt.Fprintf(w, "  %-18s %10s  [%s, %s]  (%s – %s)\n", "Capacity (TPS)", f(s.Median), f(s.Lo), f(s.Hi), f(s.Min), f(s.Max))
	}
	few := false
	for _, m := range HeadlineMetrics {
		if m.Unit == "hits/s" && r.Hits == 0 {
			continue
		}
		if !r.RepeatsHaveSamples(m) {
			fmt.Fprintf(w, "  %-18s %10s  (%s in some run's window)\n", m.Name, "—", NotEnoughSamples)
			few = true
			continue
		}
		s := stats.Summarize(r.RunValues(m))
		f := func(v float64) string { return FormatMetric(m, v) }
		fmt.Fprintf(w, "  %-18s %10s  [%s, %s]  (%s – %s)\n", m.Name, f(s.Median), f(s.Lo), f(s.Hi), f(s.Min), f(s.Max))
	}
	if few {
		fmt.Fprintf(w, "  (— %s: a p99 needs %d passed transactions in each run's window, a p90 %d)\n", NotEnoughSamples, r.MinSamples(),
			r.MinSamples()/10)
	}
	if s := stats.Summarize(r.RunValues(MetricTPS)); s.N < 6 {
		fmt.Fprintf(w, "  (a closed 95 %% interval needs 6 runs or more; ∞ marks an open side)\n")
	}
}

// Capacities is a repeated capacity search's capacity in each search (nil: not a repeated
// search).
func (r *Results) Capacities() []float64 {
	var out []float64
	for _, rep := range r.Repeats {
		if rep.PeakTPS > 0 {
			out = append(out, rep.PeakTPS)
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// RepeatsHaveSamples reports whether a metric can be shown over the runs: a percentile needs
// enough samples in every run's window (a single run: in its own).
func (r *Results) RepeatsHaveSamples(m Metric) bool {
	if m.Percentile == 0 {
		return true
	}
	if len(r.Repeats) == 0 {
		return EnoughSamples(r.Total.Pass, m.Percentile, r.MinSamples())
	}
	for _, rep := range r.Repeats {
		if !EnoughSamples(rep.Total.Pass, m.Percentile, r.MinSamples()) {
			return false
		}
	}
	return true
}

// FormatMetric writes a metric's value as pages and summaries show it.
func FormatMetric(m Metric, v float64) string {
	switch {
	case v != v:
		return "—"
	case v > 1e300:
		return "∞"
	case v < -1e300:
		return "−∞"
	}
	switch m.Unit {
	case "ms":
		return FormatMs(v)
	case "%":
		return strconv.FormatFloat(100*v, 'f', 4, 64) + " %"
	default:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
}
