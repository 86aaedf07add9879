package htmlreport

import (
	"math"
	"strconv"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/report/stats"
)

// repeatRow is one headline metric over the runs of a repeated measurement.
type repeatRow struct {
	Name, Median, Interval, Range string
	Runs                          string // every run's value, in order
}

// repeatRows are the headline metrics of a repeated measurement as benchstat summarizes them.
func repeatRows(r *report.Results) []repeatRow {
	if len(r.Repeats) < 2 {
		return nil
	}
	var out []repeatRow
	for _, m := range report.HeadlineMetrics {
		if m.Name == report.MetricHits.Name && r.Hits == 0 {
			continue
		}
		vals := r.RunValues(m)
		s := stats.Summarize(vals)
		f := func(v float64) string { return report.FormatMetric(m, v) }
		each := make([]string, len(vals))
		for i, v := range vals {
			each[i] = f(v)
		}
		out = append(out, repeatRow{Name: m.Name, Median: f(s.Median), Interval: "[" + f(s.Lo) + ", " + f(s.Hi) + "]",
			Range: f(s.Min) + " – " + f(s.Max), Runs: strings.Join(each, " · ")})
	}
	return out
}

// distNote explains the percentile distribution plot under it.
const distNote = "Latency at each percentile from the run's HDR histograms, p0 to p99.999, on a log axis of " +
	"\"nines\" (p90, p99, p99.9…): the tail gets as much room as the middle. A line stops where the samples " +
	"stop resolving percentiles (n samples resolve log10(n) nines). Passed transactions only."

// distX is the shared x axis of every distribution chart: 0 to MaxNines nines.
func distX() []float64 {
	n := int(math.Round(report.MaxNines/report.NinesStep)) + 1
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(i) * report.NinesStep
	}
	return x
}

// distSeries lays a histogram's distribution on the shared axis (nil past its reach).
func distSeries(label string, h *hdr.Histogram, n int) seriesSpec {
	s := seriesSpec{Label: label, Values: make([]*float64, n)}
	for i, p := range report.Distribution(h) {
		if i < n {
			s.Values[i] = val(p.Ms)
		}
	}
	return s
}

// reportDist is one run's distribution chart: all transactions, then each one (the legend
// switches lines on and off).
func reportDist(r *report.Results) *chartSpec {
	all := r.AllHistogram()
	if all == nil {
		return nil
	}
	x := distX()
	c := chartSpec{ID: "dist", Title: "Latency by percentile", Kind: "dist", X: x, XLabel: "percentile", YLabel: "ms", Log: true,
		Series: []seriesSpec{distSeries("all transactions", all, len(x))}, Note: distNote}
	for _, t := range r.Transactions {
		if h, err := t.DecodeHistogram(); err == nil {
			c.Series = append(c.Series, distSeries(t.Name, h, len(x)))
		}
	}
	return &c
}

// distCharts are the comparison's distribution charts: all transactions, one line per run; then
// each transaction, one line per run.
func distCharts(runs []Run) []chartSpec {
	x := distX()
	all := chartSpec{ID: "cmp-dist", Title: "Latency by percentile, all transactions", Kind: "dist", X: x, XLabel: "percentile",
		YLabel: "ms", Log: true, Note: distNote}
	for _, r := range runs {
		if h := r.Results.AllHistogram(); h != nil {
			all.Series = append(all.Series, distSeries(r.Label, h, len(x)))
		}
	}
	if len(all.Series) == 0 {
		return nil
	}
	out := []chartSpec{all}
	names := txNames(runs)
	for i, name := range names {
		c := chartSpec{ID: "cmp-dist-" + strconv.Itoa(i), Title: "Latency by percentile: " + name, Kind: "dist", X: x, XLabel: "percentile",
			YLabel: "ms", Log: true, Group: "per-transaction", Note: distNote}
		for _, r := range runs {
			t, ok := r.Results.Transaction(name)
			if !ok {
				continue
			}
			if h, err := t.DecodeHistogram(); err == nil {
				c.Series = append(c.Series, distSeries(r.Label, h, len(x)))
			}
		}
		if len(c.Series) > 0 {
			out = append(out, c)
		}
	}
	return out
}
