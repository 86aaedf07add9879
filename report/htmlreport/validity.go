package htmlreport

import (
	"slices"
	"strconv"
	"strings"

	"github.com/tradebench/tradebench/report"
)

// validityView is the verdict banner at the top of a report: the run rules' outcome and why.
type validityView struct {
	Verdict string // VALID, INVALID, INCONCLUSIVE
	Class   string // valid, invalid, inconclusive: the banner's colour
	Reasons []report.RuleResult
	// Rules is every rule checked, for the table under the banner.
	Rules []report.RuleResult
	// Shared says the driver ran beside the server (the embedded run).
	Shared bool
}

func newValidityView(r *report.Results) *validityView {
	v := r.Validity
	if v == nil {
		return nil
	}
	vv := &validityView{Verdict: strings.ToUpper(v.Verdict), Class: v.Verdict, Reasons: v.Reasons, Rules: v.Rules}
	vv.Shared = r.Driver != nil && r.Driver.SharedWithSUT
	return vv
}

// percentile is a headline or table cell: the value, or "—" when too few transactions passed
// for it (see report.EnoughSamples) — never a number that means nothing.
func percentile(r *report.Results, t report.Transaction, p float64) string {
	if v, ok := r.PercentileMs(t, p); ok {
		return report.FormatMs(v)
	}
	return "—"
}

// capacityCharts are the papers' chart of a capacity search: throughput and p90 against the
// load, one point per search step in order of load, with the peak (the knee) marked.
func capacityCharts(p *report.PeakSearch) []chartSpec {
	if p == nil || len(p.Steps) == 0 {
		return nil
	}
	var steps []report.PeakStep
	for _, s := range p.Steps {
		if s.Phase != "confirm" {
			steps = append(steps, s)
		}
	}
	if len(steps) == 0 {
		steps = p.Steps // results written before the phases were recorded
	}
	load := func(s report.PeakStep) float64 {
		if s.Rate > 0 {
			return s.Rate
		}
		return float64(s.Users)
	}
	slices.SortStableFunc(steps, func(a, b report.PeakStep) int {
		switch {
		case load(a) < load(b):
			return -1
		case load(a) > load(b):
			return 1
		}
		return 0
	})
	xl, unit, knee := "users", " users", float64(p.PeakUsers)
	if p.PeakRate > 0 {
		xl, unit, knee = "iterations/s", "/s", p.PeakRate
	}
	var x []float64
	var tps, p90 []*float64
	for _, s := range steps {
		x = append(x, load(s))
		tps = append(tps, val(s.TPS))
		p90 = append(p90, val(s.P90Ms))
	}
	// the knee: a narrow band at the peak load
	w := 0.01 * (x[len(x)-1] - x[0])
	if w == 0 {
		w = 0.5
	}
	mark := []span{{From: knee - w, To: knee + w}}
	note := "Each point is one step of the search (growth, then bisection); the band marks the peak, " +
		"where throughput stops rising and response times begin to climb, confirmed by a longer run at " + strconv.FormatFloat(knee, 'f', -1, 64) + unit + "."
	return []chartSpec{
		{ID: "capacity-tps", Title: "Throughput against load", Kind: "xy", XUnit: unit, X: x, XLabel: xl, YLabel: "TPS", Shade: mark,
			Series: []seriesSpec{{"TPS", tps}}, Note: note},
		{ID: "capacity-p90", Title: "p90 response time against load", Kind: "xy", XUnit: unit, X: x, XLabel: xl, YLabel: "ms", Shade: mark,
			Series: []seriesSpec{{"p90", p90}}},
	}
}
