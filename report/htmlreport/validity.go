package htmlreport

import (
	"slices"
	"strconv"
	"strings"
	"time"

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
// load, one point per search step in order of load. Each mark on them is one the search's text
// states too, from the same data: the knee as a band from the last step within the bounds to the
// first past them (the "knee between … and …" of the stop reason), the confirming run as a point
// of its own at the peak, and the p90 bound as a dashed line. The caption says what the curve
// shows — no knee claimed where the search never found one.
func capacityCharts(r *report.Results) []chartSpec {
	p := r.Peak
	if p == nil || len(p.Steps) == 0 {
		return nil
	}
	var steps []report.PeakStep
	var confirm *report.PeakStep
	for i, s := range p.Steps {
		if s.Phase == "confirm" {
			confirm = &p.Steps[i]
		} else {
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
	byLoad := func(a, b report.PeakStep) int { return cmpFloat(load(a), load(b)) }
	slices.SortStableFunc(steps, byLoad)
	xl, unit, peak := "users", " users", float64(p.PeakUsers)
	if p.PeakRate > 0 {
		xl, unit, peak = "iterations/s", "/s", p.PeakRate
	}
	loadText := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) + unit }

	// x: every step's load and the confirming run's, once each
	var x []float64
	for _, s := range steps {
		x = append(x, load(s))
	}
	if confirm != nil {
		x = append(x, load(*confirm))
	}
	slices.Sort(x)
	x = slices.Compact(x)
	at := func(v float64) int { i, _ := slices.BinarySearch(x, v); return i }
	column := func() []*float64 { return make([]*float64, len(x)) }
	tps, p90 := column(), column()
	judged := p.Judged()
	for _, j := range judged {
		// each load's standing measurement, the one its judged verdict rests on
		tps[at(j.Load)], p90[at(j.Load)] = val(j.Standing.TPS), val(j.Standing.P90Ms)
	}
	tpsSeries := []seriesSpec{{Label: "search step", Values: tps}}
	p90Series := []seriesSpec{{Label: "search step", Values: p90}}
	if confirm != nil {
		ct, cp := column(), column()
		ct[at(load(*confirm))], cp[at(load(*confirm))] = val(confirm.TPS), val(confirm.P90Ms)
		tpsSeries = append(tpsSeries, seriesSpec{Label: "confirming run", Values: ct, Style: stylePoints})
		p90Series = append(p90Series, seriesSpec{Label: "confirming run", Values: cp, Style: stylePoints})
	}
	var bound float64
	if r.Settings.Peak != nil && r.Settings.Peak.MaxP90 != "" {
		if d, err := time.ParseDuration(r.Settings.Peak.MaxP90); err == nil && d > 0 {
			bound = float64(d) / float64(time.Millisecond)
			b := column()
			for i := range b {
				b[i] = val(bound)
			}
			p90Series = append(p90Series, seriesSpec{Label: "p90 bound " + report.FormatMs(bound) + " ms", Values: b, Style: styleBound})
		}
	}

	knee, note := capacityKnee(p, x, peak, loadText)
	if confirm != nil {
		note += "The separate point is the longer confirming run at " + loadText(load(*confirm)) + ", whose results the report shows."
	}
	p90Note := ""
	if bound > 0 {
		p90Note = "The dashed line is the search's p90 bound (" + report.FormatMs(bound) + " ms): a step above it is past the knee."
	}
	return []chartSpec{
		{ID: "capacity-tps", Title: "Throughput against load", Kind: "xy", XUnit: unit, X: x, XLabel: xl, YLabel: "TPS", Knee: knee,
			Series: tpsSeries, SpanGaps: true, Note: strings.TrimSpace(note)},
		{ID: "capacity-p90", Title: "p90 response time against load", Kind: "xy", XUnit: unit, X: x, XLabel: xl, YLabel: "ms", Knee: knee,
			Series: p90Series, SpanGaps: true, Note: p90Note},
	}
}

// capacityKnee is the chart's knee band — from the last good step to the first bad one above it,
// the search's bracket — and the caption's start, which says what the band is or why none is
// drawn: a knee the search never found is not claimed.
func capacityKnee(p *report.PeakSearch, x []float64, peak float64, loadText func(float64) string) (*span, string) {
	var knee *span
	note := "Each point is one step of the search (growth, then bisection), in order of load. "
	// the bracket as the search judged it: a re-measurement's own vote is not its load's verdict
	lastGood, firstBad, bracketed := p.KneeBracket()
	switch {
	case p.Knee && bracketed:
		knee = &span{From: lastGood, To: firstBad}
		note += "The band is the knee: between " + loadText(lastGood) + ", the last step within the bounds, and " +
			loadText(firstBad) + ", the first past them (why: in the text above). "
	case p.Knee && peak > 0:
		// results written before steps recorded whether they were good: the peak marks the knee
		w := 0.01 * (x[len(x)-1] - x[0])
		if w == 0 {
			w = 0.5
		}
		knee = &span{From: peak - w, To: peak + w}
		note += "The band marks the peak, where the search found the knee. "
	default:
		note += "The search did not reach a knee (" + p.StopWhy + "): no band is drawn. "
	}
	return knee, note
}

// cmpFloat orders two numbers (slices.SortFunc's comparison).
func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
