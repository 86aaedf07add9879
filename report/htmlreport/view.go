package htmlreport

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/report/pricing"
)

var templates = template.Must(template.New("").Funcs(template.FuncMap{
	"ms": report.FormatMs,
	// pctl is a table's percentile: "not enough samples" below the default sample bound
	"pctl": func(pass int64, p float64, ms float64) string {
		if !report.EnoughSamples(pass, p, report.DefaultRuleMinSamplesP99) {
			return report.NotEnoughSamples
		}
		return report.FormatMs(ms)
	},
	"bytes":   func(b int64) string { return report.FormatBytes(float64(b)) },
	"tps":     formatTPS,
	"pct":     formatPct,
	"num":     func(n int64) string { return groupDigits(strconv.FormatInt(n, 10)) },
	"seconds": func(s float64) string { return strconv.FormatFloat(s, 'f', 1, 64) + " s" },
	"when":    formatTime,
}).ParseFS(templateFS, "templates/*.tmpl"))

// notRecorded is what a page says where older results (or another workload) have no data.
const notRecorded = "not recorded"

// reportView is the report of one run, ready for the template.
type reportView struct {
	page
	R        *report.Results
	Headline headline
	// Charts are drawn by the page's script from ChartData; the template lays out one figure per
	// chart and the script fills each, so the two must agree on the IDs.
	Charts     []chartSpec
	PeakChart  *chartSpec
	PriceChart *chartSpec
	// DistChart is the percentile distribution plot (nil without histograms).
	DistChart *chartSpec
	// Repeats says that the run is one of a repeated measurement ("" for a single run).
	Repeats    string
	RepeatRows []repeatRow
	// Failed are the transactions some of which failed, for their latency apart.
	Failed     []report.Transaction
	SUTCharts  []chartSpec
	SUT        []sutRow
	Codes      []codeCount
	Price      *priceView
	Disclosure *disclosureView
	Settings   []field
	Extra      []field
	Audit      *auditView
	// Validity is the verdict banner; CapacityCharts the papers' chart of a capacity search.
	Validity       *validityView
	CapacityCharts []chartSpec
}

// ChartData is every chart's data, for the page's script.
func (v reportView) ChartData() []chartSpec {
	all := slices.Clone(v.Charts)
	all = append(all, v.SUTCharts...)
	if v.DistChart != nil {
		all = append(all, *v.DistChart)
	}
	if v.PeakChart != nil {
		all = append(all, *v.PeakChart)
	}
	if v.PriceChart != nil {
		all = append(all, *v.PriceChart)
	}
	all = append(all, v.CapacityCharts...)
	return all
}

// headline is the numbers a reader looks at first.
type headline struct {
	PeakTPS   string // "" when there was no peak search
	PeakUsers int
	// PeakLabel and PeakUnit head and follow the capacity's card: which capacity it is (one
	// search's, or the median of a repeated run's) and which interval its ± is.
	PeakLabel, PeakUnit string
	// Searches says, for a repeated search, which interval the median's ± is ("" otherwise).
	Searches  string
	TPS       string
	ErrorRate string
	P50, P90  string
	P99       string
	// P90Over says that the capacity's p90 lies above the search's own p90 bound ("" when not):
	// the search's steps were judged by it, so the figure beside it must not pass unremarked.
	P90Over  string
	Window   string
	Users    string // users, or the arrival rate of an open-model run
	Verdicts []verdict
}

// verdict is one pass/fail outcome shown in the headline (thresholds, audit).
type verdict struct {
	What string
	OK   bool
}

func newReportView(r *report.Results) reportView {
	v := reportView{page: newPage(title(r)), R: r}
	v.Headline = headline{TPS: formatTPS(r.Total.TPS), ErrorRate: formatPct(r.ErrorRate()),
		P50: percentile(r, r.Total, 50), P90: percentile(r, r.Total, 90), P99: percentile(r, r.Total, 99),
		Window: strconv.FormatFloat(r.SteadySeconds, 'f', 0, 64) + " s", Users: offeredLoad(r)}
	if p := r.Peak; p != nil {
		v.Headline.PeakTPS, v.Headline.PeakUsers = formatTPS(p.PeakTPS), p.PeakUsers
		v.Headline.PeakLabel, v.Headline.PeakUnit = "Peak sustained TPS", "at "+strconv.Itoa(p.PeakUsers)+" users"
		if c, ok := report.CapacityOf(r); ok && len(c.Searches) > 1 {
			// the card states the capacity as the terminal's headline does: the median ± where a
			// next search lands
			v.Headline.PeakTPS = c.Interval()
			v.Headline.PeakLabel = "Capacity, median of " + strconv.Itoa(len(c.Searches)) + " searches (TPS)"
			v.Headline.PeakUnit = "±: where a next search lands (95 %)"
			v.Headline.Searches = "The median of " + strconv.Itoa(len(c.Searches)) + " searches is " + c.Interval() + " " +
				"TPS: " + c.NextLine() + "; the figures below are the last search's"
		} else if r.Validity != nil && r.Validity.Verdict == report.Interrupted && p.Interval == nil {
			v.Headline.PeakLabel = "Best good step (interrupted: not a capacity)"
		} else if p.Interval != nil {
			v.Headline.PeakTPS = p.Capacity() // "157 ± 37", as the terminal's headline
			v.Headline.PeakUnit = "±: where a second run lands (95 %) · at " + strconv.Itoa(p.PeakUsers) + " users"
		}
		v.Headline.P90Over = peakP90Over(r)
	}
	if len(r.Thresholds) > 0 {
		ok := true
		for _, t := range r.Thresholds {
			ok = ok && t.Passed
		}
		v.Headline.Verdicts = append(v.Headline.Verdicts, verdict{"thresholds", ok})
	}
	if r.Audit != nil {
		v.Headline.Verdicts = append(v.Headline.Verdicts, verdict{"audit", r.Audit.Passed})
	}
	v.Charts = timeCharts(r)
	markFaults(v.Charts, r)
	if !r.StartedAt.IsZero() {
		for i := range v.Charts {
			v.Charts[i].Start = r.StartedAt.UnixMilli()
		}
	}
	v.DistChart = reportDist(r)
	if n := len(r.Repeats); n > 1 {
		v.RepeatRows = repeatRows(r)
		v.Repeats = "A repeated measurement of " + strconv.Itoa(n) + " runs: the pages show the last run in full; the summary and " +
			"'report compare' use every run (medians, intervals, tests)."
	}
	if c := txP90Chart(r); c != nil {
		v.Charts = append(v.Charts, *c)
	}
	if c := txLatencyChart(r); c != nil {
		c.Start = v.Charts[0].Start
		v.Charts = append(v.Charts, *c)
	}
	for _, t := range r.Transactions {
		if t.Failed != nil {
			v.Failed = append(v.Failed, t)
		}
	}
	v.SUT, v.SUTCharts = sutView(r.SUT)
	v.PeakChart = peakChart(r.Peak)
	v.Validity = newValidityView(r)
	v.CapacityCharts = capacityCharts(r)
	v.Codes = statusCodes(r.StatusCodes)
	v.Price = newPriceView(r.PricePerformance)
	v.PriceChart = priceChart(r.PricePerformance, r.Peak)
	v.Disclosure = newDisclosureView(r.Disclosure)
	v.Settings = flatten("", r.Settings)
	v.Extra = flatten("", r.Detail)
	v.Audit = newAuditView(r.Audit)
	return v
}

// peakP90Over says, when a capacity search's confirming run measured a p90 above the search's
// own p90 bound, by how much ("" otherwise, or when the search had no bound).
func peakP90Over(r *report.Results) string {
	if r.Peak == nil || r.Settings.Peak == nil || r.Settings.Peak.MaxP90 == "" {
		return ""
	}
	bound, err := time.ParseDuration(r.Settings.Peak.MaxP90)
	if err != nil || bound <= 0 {
		return ""
	}
	b := float64(bound) / float64(time.Millisecond)
	if r.Peak.PeakP90Ms <= b {
		return ""
	}
	return "above the search's own p90 bound of " + report.FormatMs(b) + " ms"
}

func newPage(title string) page {
	return page{Title: title, Generated: time.Now().UTC(), Version: report.Version}
}

// title names a run: its label, or workload / scenario.
func title(r *report.Results) string {
	if r.Label != "" {
		return r.Label
	}
	t := r.Workload
	if r.Scenario != "" {
		t += " / " + r.Scenario
	}
	return t
}

// offeredLoad is the load the run offered: users (closed model) or arrivals a second (open).
func offeredLoad(r *report.Results) string {
	if d := r.Disclosure; d != nil {
		if d.Workload.Rate > 0 {
			return formatTPS(d.Workload.Rate) + " arrivals/s"
		}
		if d.Workload.Users > 0 {
			return strconv.Itoa(d.Workload.Users) + " users"
		}
	}
	settings := flatten("", r.Settings)
	if rate, _ := strconv.ParseFloat(lookup(settings, "rate"), 64); rate > 0 {
		return formatTPS(rate) + " arrivals/s"
	}
	if users := lookup(settings, "users"); users != "" {
		return users + " users"
	}
	return ""
}

// chartSpec is one chart for the page's script: a time series (x in seconds since the start)
// or bars (x the index of a category, Labels the categories).
type chartSpec struct {
	ID     string       `json:"id"`
	Title  string       `json:"title"`
	Kind   string       `json:"kind"` // "time", "bars" or "xy" (x a load, XUnit its unit)
	XUnit  string       `json:"xUnit,omitempty"`
	X      []float64    `json:"x"`
	Labels []string     `json:"labels,omitempty"`
	XLabel string       `json:"xLabel"`
	YLabel string       `json:"yLabel"`
	Series []seriesSpec `json:"series"`
	// Shade are spans of x greyed out: the ramp-up and ramp-down, which are not measured.
	Shade []span `json:"shade,omitempty"`
	// SpanGaps joins a line across samples it has no value at: for series sampled at their own
	// times (each SUT process), a gap is another process's sample time, not a missing second.
	SpanGaps bool `json:"spanGaps,omitempty"`
	// Note explains the chart under it (what is measured, what is not).
	Note string `json:"-"`
	// Log offers a log-scale toggle on the y axis (latency charts) and starts on it when the
	// kind is "dist".
	Log bool `json:"log,omitempty"`
	// Start is the run's start in Unix milliseconds: a time chart's x axis shows clock time
	// (seconds from the start on hover).
	Start int64 `json:"start,omitempty"`
	// Hidden are the series (by index) that start switched off (the legend switches them on).
	Hidden []int `json:"hidden,omitempty"`
	// Knee is a capacity search's knee, drawn as a coloured band across the plot (nil: none).
	Knee *span `json:"knee,omitempty"`
	// Faults are the run's fault windows, drawn as named red bands (faults.go).
	Faults []faultBand `json:"faults,omitempty"`
	// Group places the chart in a folded group of the page ("" = shown).
	Group string `json:"-"`
}

type seriesSpec struct {
	Label string `json:"label"`
	// Values has one entry per x; nil is a gap (no sample), drawn as a break in the line.
	Values []*float64 `json:"values"`
	// Style is how the series is drawn: "" a line, stylePoints markers only (a run apart from
	// the line's), styleBound a dashed line without markers (a limit, not a measurement).
	Style string `json:"style,omitempty"`
}

const (
	stylePoints = "points"
	styleBound  = "bound"
)

type span struct {
	From float64 `json:"from"`
	To   float64 `json:"to"`
}

func val(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

// secondPercentile is the percentile p of one second's passed transactions as a chart draws
// it: no point (nil) in a second with too few of them for it under the run's samples rule —
// the rule every table follows (a p99 needs MinSamples passed transactions, a p90 a tenth) —
// never a number that means nothing.
func secondPercentile(r *report.Results, passed, p, ms float64) *float64 {
	if !report.EnoughSamples(int64(math.Round(passed)), p, r.MinSamples()) {
		return nil
	}
	return val(ms)
}

// samplesNote says which seconds a per-second percentile chart leaves out.
func samplesNote(r *report.Results) string {
	return fmt.Sprintf("A percentile is drawn only in the seconds with enough passed transactions for it: %d for a p99, %d for a p90 "+
		"(the samples rule).",
		r.MinSamples(), r.MinSamples()/10)
}

// timeCharts are the charts over the run, from the per-second series.
func timeCharts(r *report.Results) []chartSpec {
	if len(r.Series) == 0 {
		return nil
	}
	n := len(r.Series)
	x := make([]float64, n)
	col := func(f func(report.SeriesPoint) float64) []*float64 {
		out := make([]*float64, n)
		for i, p := range r.Series {
			out[i] = val(f(p))
		}
		return out
	}
	// a per-second percentile is drawn only where its second had enough passed transactions
	pctl := func(q float64, f func(report.SeriesPoint) float64) []*float64 {
		out := make([]*float64, n)
		for i, p := range r.Series {
			out[i] = secondPercentile(r, p.TPS, q, f(p))
		}
		return out
	}
	for i, p := range r.Series {
		x[i] = float64(p.Second)
	}
	// grey out what is not measured: runs of points outside the steady state
	var shade []span
	for i := 0; i < n; {
		if r.Series[i].Phase == "steady" || r.Series[i].Phase == "" {
			i++
			continue
		}
		j := i
		for j+1 < n && r.Series[j+1].Phase == r.Series[i].Phase {
			j++
		}
		shade = append(shade, span{From: x[i] - 0.5, To: x[j] + 0.5})
		i = j + 1
	}
	users := "active users"
	if lookup(flatten("", r.Settings), "model") == "open" {
		users = "iterations in flight"
	}
	const unmeasured = "Grey: ramp-up and ramp-down, not measured."
	// hits/s is drawn only in the seconds it differs from transactions/s (a transaction of one
	// request each has as many hits): two coinciding lines hide each other.
	hits := make([]*float64, n)
	hitsDiffer := false
	for i, p := range r.Series {
		if float64(p.Hits) != p.TPS {
			hits[i], hitsDiffer = val(float64(p.Hits)), true
		}
	}
	tpsChart := chartSpec{ID: "tps", Title: "Throughput", Kind: "time", X: x, XLabel: "time", YLabel: "per second", Shade: shade,
		Series: []seriesSpec{{Label: "transactions passed/s", Values: col(func(p report.SeriesPoint) float64 { return p.TPS })}},
		Note:   "Transactions passed in each second. " + unmeasured}
	if hitsDiffer {
		tpsChart.Series = append(tpsChart.Series, seriesSpec{Label: "hits/s (where not equal)", Values: hits})
		tpsChart.Note = "Transactions passed and HTTP requests (hits) in each second; hits are drawn only in the seconds they differ " +
			"from transactions. " + unmeasured
	} else if r.Hits > 0 {
		tpsChart.Note += " Hits/s equal transactions/s in every second (one request per transaction), so they are not drawn twice."
	}
	latency := chartSpec{ID: "latency", Title: "Response time", Kind: "time", X: x, XLabel: "time", YLabel: "ms", Shade: shade, Log: true,
		Series: []seriesSpec{{Label: "p50", Values: pctl(50, func(p report.SeriesPoint) float64 { return p.P50Ms })},
			{Label: "p90", Values: pctl(90, func(p report.SeriesPoint) float64 { return p.P90Ms })},
			{Label: "p99", Values: pctl(99, func(p report.SeriesPoint) float64 { return p.P99Ms })}},
		Note: "Percentiles of the transactions that passed in each second (log scale: a spike does not flatten the " +
			"median). " + samplesNote(r) + " " + unmeasured}
	if gone := dropUndrawn(&latency); len(gone) > 0 {
		latency.Note += " No second had enough for its " + strings.Join(gone, " or ") + ": not drawn (the tables give the measured window's)."
	}
	return []chartSpec{
		tpsChart,
		latency,
		{ID: "users", Title: "Load", Kind: "time", X: x, XLabel: "time", YLabel: users, Shade: shade,
			Series: []seriesSpec{{Label: users, Values: col(func(p report.SeriesPoint) float64 { return float64(p.Users) })}},
			Note:   "The offered load over the run."},
		{ID: "errors", Title: "Errors", Kind: "time", X: x, XLabel: "time", YLabel: "per second", Shade: shade,
			Series: []seriesSpec{{Label: "failed transactions/s", Values: col(func(p report.SeriesPoint) float64 { return float64(p.Errors) })}},
			Note:   "Transactions that failed a check or the transport in each second."},
	}
}

// dropUndrawn removes from c the series without a single point (a legend entry for a line
// never drawn says there is one), keeping Hidden's indices on the series they named, and
// returns the labels removed.
func dropUndrawn(c *chartSpec) []string {
	var gone []string
	kept := c.Series[:0]
	var hidden []int
	for i, s := range c.Series {
		if !slices.ContainsFunc(s.Values, func(v *float64) bool { return v != nil }) {
			gone = append(gone, s.Label)
			continue
		}
		if slices.Contains(c.Hidden, i) {
			hidden = append(hidden, len(kept))
		}
		kept = append(kept, s)
	}
	c.Series, c.Hidden = kept, hidden
	return gone
}

// txP90Chart is each transaction's p90 over the measured window, from its exact histogram: a
// bar each (nil without one). Per second, a transaction of a many-transaction scenario rarely
// has the passed transactions a p90 needs (its TPS is a fraction of the run's), so the line
// chart per second is near empty; over the window it has them, as the table shows.
func txP90Chart(r *report.Results) *chartSpec {
	if len(r.Transactions) < 2 {
		return nil // one transaction: the response time chart and the table say it
	}
	c := chartSpec{ID: "tx-p90", Title: "p90 response time per transaction", Kind: "bars", XLabel: "transaction", YLabel: "ms"}
	var vals []*float64
	var short []string
	for i, t := range r.Transactions {
		c.X = append(c.X, float64(i))
		c.Labels = append(c.Labels, t.Name)
		if report.EnoughSamples(t.Pass, 90, r.MinSamples()) {
			vals = append(vals, val(t.P90Ms))
		} else {
			vals = append(vals, nil)
			short = append(short, t.Name)
		}
	}
	c.Series = []seriesSpec{{Label: "p90 (ms)", Values: vals}}
	c.Note = "Each transaction's 90th percentile over the measured window, from its exact histogram (the table's p90)."
	if len(short) > 0 {
		c.Note += fmt.Sprintf(" No bar for %s: fewer than the %d passed transactions a p90 needs.", strings.Join(short, ", "), r.MinSamples()/10)
	}
	return &c
}

// txShown is how many transactions' lines the per-transaction latency chart starts with; the
// legend switches the others on.
const txShown = 5

// txLatencyChart is each transaction's p90 in each second (nil when the series has none: a
// distributed run, or results written before they were recorded).
func txLatencyChart(r *report.Results) *chartSpec {
	var names []string
	seen := map[string]bool{}
	for _, t := range r.Transactions {
		seen[t.Name] = true
		names = append(names, t.Name)
	}
	any := false
	for _, p := range r.Series {
		for _, t := range p.Transactions {
			any = true
			if !seen[t.Name] {
				seen[t.Name] = true
				names = append(names, t.Name)
			}
		}
	}
	if !any {
		return nil
	}
	c := chartSpec{ID: "tx-latency", Title: "p90 response time per transaction, each second", Kind: "time", XLabel: "time", YLabel: "ms", Log: true,
		Note: "Each transaction's 90th percentile in each second; click a name in the legend to show or hide its line (the " +
			"first " + strconv.Itoa(txShown) + " are shown). " + samplesNote(r)}
	index := map[string]int{}
	for i, n := range names {
		index[n] = i
		c.Series = append(c.Series, seriesSpec{Label: n, Values: make([]*float64, len(r.Series))})
		if i >= txShown {
			c.Hidden = append(c.Hidden, i)
		}
	}
	for i, p := range r.Series {
		c.X = append(c.X, float64(p.Second))
		for _, t := range p.Transactions {
			c.Series[index[t.Name]].Values[i] = secondPercentile(r, t.TPS, 90, t.P90Ms)
		}
	}
	if gone := dropUndrawn(&c); len(c.Series) == 0 {
		return nil // no transaction had a second with enough: the window's p90 per transaction says it
	} else if len(gone) > 0 {
		c.Note += " Not drawn, no second with enough: " + strings.Join(gone, ", ") + "."
	}
	return &c
}

// sutRow is one process of the system under test in the resources table.
type sutRow struct {
	report.SUTProcess
	AvgCores string
	Found    string // why it was counted as the system under test (report.SUT.Found)
}

// sutView is the resources table and the CPU and memory charts, one line per process, on the
// union of the processes' sample times (a process without a sample at a time has a gap there).
func sutView(s *report.SUT) ([]sutRow, []chartSpec) {
	if s == nil || len(s.Processes) == 0 {
		return nil, nil
	}
	var rows []sutRow
	times := map[float64]bool{}
	for i, p := range s.Processes {
		row := sutRow{SUTProcess: p, Found: s.Found(i)}
		if n := len(p.Series); n > 0 && p.Series[n-1].T > p.Series[0].T {
			row.AvgCores = strconv.FormatFloat(p.CPUSeconds/(p.Series[n-1].T-p.Series[0].T), 'f', 2, 64)
		}
		rows = append(rows, row)
		for _, pt := range p.Series {
			times[pt.T] = true
		}
	}
	if len(times) == 0 {
		return rows, nil
	}
	x := make([]float64, 0, len(times))
	for t := range times {
		x = append(x, t)
	}
	sort.Float64s(x)
	index := make(map[float64]int, len(x))
	for i, t := range x {
		index[t] = i
	}
	cpu := chartSpec{ID: "sut-cpu", Title: "System under test: CPU", Kind: "time", X: x, XLabel: "seconds", YLabel: "cores", SpanGaps: true,
		Note: "CPU time used per second of each process (1.0 = one core busy)."}
	mem := chartSpec{ID: "sut-mem", Title: "System under test: memory", Kind: "time", X: x, XLabel: "seconds", YLabel: "MiB", SpanGaps: true,
		Note: "Resident set size of each process."}
	for _, p := range s.Processes {
		c, m := make([]*float64, len(x)), make([]*float64, len(x))
		for _, pt := range p.Series {
			i := index[pt.T]
			c[i], m[i] = val(pt.CPUCores), val(float64(pt.RSSBytes)/(1<<20))
		}
		cpu.Series = append(cpu.Series, seriesSpec{Label: p.Name, Values: c})
		mem.Series = append(mem.Series, seriesSpec{Label: p.Name, Values: m})
	}
	return rows, []chartSpec{cpu, mem}
}

// peakChart is the peak search's steps: throughput reached at each load.
func peakChart(p *report.PeakSearch) *chartSpec {
	if p == nil || len(p.Steps) == 0 {
		return nil
	}
	c := chartSpec{ID: "peak", Title: "Peak search", Kind: "bars", XLabel: "step", YLabel: "TPS",
		Note: "Throughput reached at each step, in the order the search ran them: growth, bisection, then the longer confirming run at the peak."}
	tps := make([]*float64, len(p.Steps))
	for i, s := range p.Steps {
		c.X = append(c.X, float64(i))
		label := strconv.Itoa(s.Users) + " users"
		if s.Rate > 0 {
			label = formatTPS(s.Rate) + "/s"
		}
		c.Labels = append(c.Labels, label)
		tps[i] = val(s.TPS)
	}
	c.Series = []seriesSpec{{Label: "TPS", Values: tps}}
	return &c
}

// priceChart is the cost per TPS at each step of a peak search: how price/performance improves
// with load up to the peak (nil without both a price and a peak search; one number needs no chart).
func priceChart(pp *report.PricePerformance, p *report.PeakSearch) *chartSpec {
	if pp == nil || p == nil || len(p.Steps) == 0 {
		return nil
	}
	total, err := pricing.ParseCents(pp.Total)
	if err != nil {
		return nil
	}
	c := chartSpec{ID: "price-steps", Title: "Price/performance at each step", Kind: "bars", XLabel: "step", YLabel: pp.Currency + " per TPS",
		Note: "The total price divided by the throughput each step of the peak search reached (lower is better)."}
	per := make([]*float64, len(p.Steps))
	for i, s := range p.Steps {
		c.X = append(c.X, float64(i))
		c.Labels = append(c.Labels, strconv.Itoa(s.Users)+" users")
		if s.TPS > 0 && !math.IsInf(s.TPS, 0) {
			per[i] = val(decimalValue(pricing.FormatCents(pricing.PerTPSCents(total, s.TPS))))
		}
	}
	c.Series = []seriesSpec{{Label: pp.Currency + " per TPS", Values: per}}
	return &c
}
