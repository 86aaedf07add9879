package htmlreport

import (
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/tradebench/tradebench/report"
)

// compareView is the side-by-side comparison of runs; the first run is the baseline.
type compareView struct {
	page
	Runs    []runView
	Metrics []metricRow
	Charts  []chartSpec
	Tx      []txRow
	// Changed are the settings and disclosed facts that differ between the runs (what changed);
	// Same those every run shares.
	Changed []diffRow
	Same    []diffRow
	// Folded are the per-run facts that differ on every run (ports, ids, times), shown on demand.
	Folded []diffRow
	// Method is the line stating how differences were tested; Caveats are what a reader must
	// know first (other measured windows, other data sets).
	Method  string
	Caveats []string
	// Variants are the system variants each run differs from the baseline in (access mode,
	// order mode, database): what the comparison compares. LoadNotes say once which runs
	// offered another load, whose throughput is therefore shown uncoloured.
	Variants  []string
	LoadNotes []string
}

// ChartData is every chart's data, for the page's script.
func (v compareView) ChartData() []chartSpec { return v.Charts }

// GroupedCharts are the charts folded into a group under the others.
func (v compareView) GroupedCharts() []chartSpec {
	var out []chartSpec
	for _, c := range v.Charts {
		if c.Group != "" {
			out = append(out, c)
		}
	}
	return out
}

type runView struct {
	Label string
	R     *report.Results
	Load  string
	Price *priceView
	// Command is the command line that produced the run, as a shell line.
	Command string
	// Runs is the number of repeated runs (1 for a single run).
	Runs int
}

// metricRow is one headline number across the runs.
type metricRow struct {
	Name  string
	Cells []cell
}

// cell is a value and, after the baseline, its change from the baseline; Class says whether the
// change is "better" or "worse" for this metric ("" when too small to matter or not comparable).
type cell struct {
	Value, Delta, Class string
	// Title explains the cell on hover (the test, the interval); Range is a repeated metric's
	// min – max.
	Title, Range string
}

// txRow is one transaction across the runs.
type txRow struct {
	Name string
	TPS  []cell
	P90  []cell
	Errs []cell
}

// diffRow is one setting or disclosed fact across the runs.
type diffRow struct {
	Key    string
	Values []string
	// Changed marks the runs whose value differs from the baseline's.
	Changed []bool
}

// direction says which way a metric is better.
type direction int

const (
	higherBetter direction = iota
	lowerBetter
)

// noticeable is the smallest relative change marked better or worse; below it runs are within
// the noise of a benchmark and the page says so by not colouring it.
const noticeable = 0.02

// cells lays out one metric across runs: values formatted by f, deltas relative to the first.
// missing[i] marks runs without the metric (shown as not recorded, no delta).
func cells(vals []float64, missing []bool, f func(float64) string, dir direction) []cell {
	out := make([]cell, len(vals))
	for i, v := range vals {
		if missing != nil && missing[i] {
			out[i] = cell{Value: "—"}
			continue
		}
		out[i].Value = f(v)
		if i == 0 || (missing != nil && missing[0]) {
			continue
		}
		// a single number per run (a peak, a price) has nothing to test its change against:
		// shown, never coloured
		out[i].Delta, _ = delta(vals[0], v, dir)
		out[i].Title = "one number per run: not tested for significance"
	}
	return out
}

func delta(base, v float64, dir direction) (string, string) {
	if base == 0 {
		if v == 0 {
			return "±0", ""
		}
		return "new", ""
	}
	rel := (v - base) / math.Abs(base)
	s := strconv.FormatFloat(100*rel, 'f', 1, 64) + " %"
	if rel > 0 {
		s = "+" + s
	}
	if math.Abs(rel) < noticeable {
		return s, ""
	}
	if (rel > 0) == (dir == higherBetter) {
		return s, "better"
	}
	return s, "worse"
}

// newCompareView is the comparison page of runs, runs[0] the baseline: the runs and what
// changed between them, the headline metrics as a table, then the charts — each part built by
// its own function below, in the order the page shows them.
func newCompareView(runs []Run) compareView {
	v := compareView{page: newPage("comparison of " + strconv.Itoa(len(runs)) + " runs")}
	labels, anyPeak, anyPrice := v.addRuns(runs)
	v.Method = MethodLine
	v.Changed, v.Same = differences(runs)
	v.Changed, v.Folded = fold(v.Changed)
	load := changesOf(v.Changed, len(runs), isLoadSetting)
	v.LoadNotes = loadNotes(runs, load)
	for i, vs := range changesOf(v.Changed, len(runs), isSystemVariant) {
		if len(vs) > 0 {
			v.Variants = append(v.Variants, runs[i].Label+": "+strings.Join(vs, ", "))
		}
	}
	for _, r := range runs[1:] {
		v.Caveats = append(v.Caveats, report.Caveats(runs[0].Results, r.Results)...)
	}
	v.addMetrics(runs, load, anyPeak)
	var perTPS []float64
	if anyPrice {
		var row metricRow
		row, perTPS = priceRow(runs)
		v.Metrics = append(v.Metrics, row)
	}
	x := make([]float64, len(runs))
	for i := range x {
		x[i] = float64(i)
	}
	v.Charts = append(v.Charts, runCharts(runs, x, labels, anyPeak)...)
	v.addTransactions(runs, load)
	if anyPrice {
		v.Charts = append(v.Charts, comparePriceChart(runs, x, labels, perTPS))
	}
	if c := overTime(runs); len(c.X) > 0 {
		// runs too short to close a second have no series: no chart, rather than one that breaks
		v.Charts = append(v.Charts, c)
	}
	v.Charts = append(v.Charts, distCharts(runs)...)
	return v
}

// column is f of each run's results, in the runs' order: one bar or cell per run.
func column(runs []Run, f func(*report.Results) float64) []float64 {
	out := make([]float64, len(runs))
	for i, r := range runs {
		out[i] = f(r.Results)
	}
	return out
}

// addRuns lists the runs (label, load, price, the command that made each) and says whether
// any has a capacity search's peak or a price, which add rows and charts of their own.
func (v *compareView) addRuns(runs []Run) (labels []string, anyPeak, anyPrice bool) {
	labels = make([]string, len(runs))
	for i, r := range runs {
		labels[i] = r.Label
		rv := runView{Label: r.Label, R: r.Results, Load: offeredLoad(r.Results), Price: newPriceView(r.Results.PricePerformance),
			Runs: max(1, len(r.Results.Repeats))}
		if d := r.Results.Disclosure; d != nil && len(d.Command) > 0 {
			rv.Command = report.ShellLine(d.Command)
		}
		v.Runs = append(v.Runs, rv)
		anyPeak = anyPeak || r.Results.Peak != nil
		anyPrice = anyPrice || r.Results.PricePerformance != nil
	}
	return labels, anyPeak, anyPrice
}

// addMetrics is the headline table: a row per headline metric (hits only when a run made
// HTTP requests), the peak's row after throughput when any run searched for one.
func (v *compareView) addMetrics(runs []Run, load [][]string, anyPeak bool) {
	anyHits := false
	for _, r := range runs {
		anyHits = anyHits || r.Results.Hits > 0
	}
	for _, m := range report.HeadlineMetrics {
		if m.Name == report.MetricHits.Name && !anyHits {
			continue
		}
		v.Metrics = append(v.Metrics, metricRow{m.Name, statCells(runs, m, load)})
		if m.Name == report.MetricTPS.Name && anyPeak {
			v.Metrics = append(v.Metrics, peakRow(runs))
		}
	}
}

// priceRow is the cost per TPS of each priced run (lower is better), and the figures its chart
// draws; the value shown is the exact decimal from the results, with its currency.
func priceRow(runs []Run) (metricRow, []float64) {
	noPrice := make([]bool, len(runs))
	perTPS := make([]float64, len(runs))
	for i, r := range runs {
		if pp := r.Results.PricePerformance; pp != nil {
			perTPS[i] = decimalValue(pp.PerTPS)
		} else {
			noPrice[i] = true
		}
	}
	row := metricRow{"Cost per TPS", cells(perTPS, noPrice, func(f float64) string { return "" }, lowerBetter)}
	for i, r := range runs {
		if pp := r.Results.PricePerformance; pp != nil {
			row.Cells[i].Value = pp.PerTPS + " " + pp.Currency
		}
	}
	return row, perTPS
}

// runCharts are the papers' side-by-side bars per run: throughput (with the peak beside it when
// any run searched for one) and response time. The bars show what the headline shows: the
// median over a repeated run's runs.
func runCharts(runs []Run, x []float64, labels []string, anyPeak bool) []chartSpec {
	tps := column(runs, func(r *report.Results) float64 { return centreOf(r, report.MetricTPS) })
	p50 := column(runs, func(r *report.Results) float64 { return centreOf(r, report.MetricP50) })
	p90 := column(runs, func(r *report.Results) float64 { return centreOf(r, report.MetricP90) })
	p99 := column(runs, func(r *report.Results) float64 { return centreOf(r, report.MetricP99) })
	tpsSeries := []seriesSpec{{Label: "steady-state TPS", Values: vals(tps)}}
	if anyPeak {
		pk := vals(column(runs, func(r *report.Results) float64 {
			if r.Peak == nil {
				return 0
			}
			return r.Peak.PeakTPS
		}))
		for i, r := range runs {
			if r.Results.Peak == nil {
				pk[i] = nil
			}
		}
		tpsSeries = append(tpsSeries, seriesSpec{Label: "peak TPS", Values: pk})
	}
	return []chartSpec{
		{ID: "cmp-tps", Title: "Throughput per run", Kind: "bars", X: x, Labels: labels, XLabel: "run", YLabel: "TPS", Series: tpsSeries,
			Note: "Transactions passed per second of the measured steady state (the median over the runs of a repeated run)."},
		{ID: "cmp-latency", Title: "Response time per run", Kind: "bars", X: x, Labels: labels, XLabel: "run", YLabel: "ms",
			Series: []seriesSpec{{Label: "p50", Values: vals(p50)}, {Label: "p90", Values: vals(p90)}, {Label: "p99", Values: vals(p99)}},
			Note:   "Percentiles over all transactions of the measured steady state (medians over the runs of a repeated run)."}}
}

// addTransactions is the per-transaction part, in the baseline's order and then any the others
// add: a throughput and a p90 chart with a bar per run, and a table row per transaction.
func (v *compareView) addTransactions(runs []Run, load [][]string) {
	names := txNames(runs)
	tx := make([]float64, len(names))
	for i := range tx {
		tx[i] = float64(i)
	}
	tpsByTx := chartSpec{ID: "cmp-tx-tps", Title: "Throughput per transaction", Kind: "bars", X: tx, Labels: names, XLabel: "transaction",
		YLabel: "TPS",
		Note:   "Each transaction's passed transactions per second, run by run (the median over the runs of a repeated run)."}
	p90ByTx := chartSpec{ID: "cmp-tx-p90", Title: "p90 response time per transaction", Kind: "bars", X: tx, Labels: names, XLabel: "transaction",
		YLabel: "ms", Note: "Each transaction's 90th percentile, run by run (the median over the runs of a repeated run)."}
	for _, r := range runs {
		// the bars show what the tables show: a repeated run's median over its runs
		t, p := make([]*float64, len(names)), make([]*float64, len(names))
		for i, name := range names {
			t[i] = txMedian(r.Results, name, func(_ *report.Results, t report.Transaction) float64 { return t.TPS })
			p[i] = txMedian(r.Results, name, txPercentile(90)) // no bar without enough samples
		}
		tpsByTx.Series = append(tpsByTx.Series, seriesSpec{Label: r.Label, Values: t})
		p90ByTx.Series = append(p90ByTx.Series, seriesSpec{Label: r.Label, Values: p})
	}
	if len(names) > 0 {
		v.Charts = append(v.Charts, tpsByTx, p90ByTx)
	}
	for _, name := range names {
		v.Tx = append(v.Tx, txRowOf(runs, name, load))
	}
}

// txRowOf is one transaction's row: throughput and p90 as the headline's cells (a repeated
// run's median, tested against the baseline), and its errors.
func txRowOf(runs []Run, name string, load [][]string) txRow {
	row := txRow{Name: name}
	e := make([]float64, len(runs))
	missing := make([]bool, len(runs))
	for i, r := range runs {
		tr, ok := r.Results.Transaction(name)
		missing[i] = !ok
		e[i] = float64(tr.Errors)
	}
	row.TPS = repeatedTxCells(runs, name, func(_ *report.Results, t report.Transaction) float64 { return t.TPS }, formatTPS, true, true, load)
	row.P90 = repeatedTxCells(runs, name, txPercentile(90), report.FormatMs, false, false, load)
	row.Errs = cells(e, missing, func(f float64) string { return groupDigits(strconv.FormatFloat(f, 'f', 0, 64)) }, lowerBetter)
	return row
}

// comparePriceChart is the price/performance bars of the priced runs, in the first priced run's
// currency.
func comparePriceChart(runs []Run, x []float64, labels []string, perTPS []float64) chartSpec {
	pt := vals(perTPS)
	for i, r := range runs {
		if r.Results.PricePerformance == nil {
			pt[i] = nil
		}
	}
	cur := ""
	for _, r := range runs {
		if pp := r.Results.PricePerformance; pp != nil {
			cur = pp.Currency
			break
		}
	}
	return chartSpec{ID: "cmp-price", Title: "Price/performance", Kind: "bars", X: x, Labels: labels, XLabel: "run",
		YLabel: cur + " per TPS", Series: []seriesSpec{{Label: "cost per TPS", Values: pt}},
		Note: "Total price of the system under test divided by its throughput (lower is better); see each run's price list below."}
}

func vals(f []float64) []*float64 {
	out := make([]*float64, len(f))
	for i, x := range f {
		out[i] = val(x)
	}
	return out
}

// decimalValue reads a decimal string (a price) for a chart bar or a percentage; the exact
// value stays the string shown beside it.
func decimalValue(s string) float64 {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return math.NaN()
	}
	f, _ := r.Float64()
	return f
}

// overTime is every run's throughput over its run, on one time axis.
func overTime(runs []Run) chartSpec {
	c := chartSpec{ID: "cmp-over-time", Title: "Throughput over time", Kind: "time", XLabel: "seconds", YLabel: "TPS",
		Note: "Transactions passed in each second of each run, ramp-up and ramp-down included."}
	last := -1
	for _, r := range runs {
		for _, p := range r.Results.Series {
			last = max(last, p.Second)
		}
	}
	for t := 0; t <= last; t++ {
		c.X = append(c.X, float64(t))
	}
	for _, r := range runs {
		s := make([]*float64, len(c.X))
		for _, p := range r.Results.Series {
			if p.Second >= 0 {
				s[p.Second] = val(p.TPS)
			}
		}
		c.Series = append(c.Series, seriesSpec{Label: r.Label, Values: s})
	}
	return c
}

// differences lines up every setting and disclosed fact of the runs by key and splits them into
// those that differ between the runs and those every run shares.
func differences(runs []Run) (changed, same []diffRow) {
	per := make([]map[string]string, len(runs))
	keys := map[string]bool{}
	for i, r := range runs {
		res := r.Results
		var fs []field
		fs = append(fs, field{"workload", res.Workload}, field{"scenario", res.Scenario}, field{"target", res.Target})
		fs = append(fs, flatten("settings", res.Settings)...)
		fs = append(fs, flatten("disclosure", res.Disclosure)...)
		fs = append(fs, flatten("load_generator", res.System)...)
		if pp := res.PricePerformance; pp != nil {
			fs = append(fs, field{"price.currency", pp.Currency}, field{"price.total", pp.Total})
			fs = append(fs, flatten("price", struct {
				Items []report.PriceItem `json:"items"`
			}{pp.Items})...)
		}
		per[i] = map[string]string{}
		for _, f := range fs {
			per[i][f.Key] = f.Value
			keys[f.Key] = true
		}
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		row := diffRow{Key: k, Values: make([]string, len(runs)), Changed: make([]bool, len(runs))}
		differs := false
		for i := range runs {
			val, ok := per[i][k]
			if !ok {
				val = notRecorded
			}
			row.Values[i] = val
			if i > 0 && val != row.Values[0] {
				row.Changed[i], differs = true, true
			}
		}
		if differs {
			changed = append(changed, row)
		} else {
			same = append(same, row)
		}
	}
	return changed, same
}

// peakRow is the capacity of each run that searched for it, with where a second search lands
// (its interval, or a repeated run's median and its searches' spread), and against the baseline
// the change, tested against those intervals: "~" for the same build run twice, coloured only
// when significant (report.CompareCapacity). A run without a search shows none.
func peakRow(runs []Run) metricRow {
	out := make([]cell, len(runs))
	for i, r := range runs {
		c, ok := report.CapacityOf(r.Results)
		if !ok {
			out[i] = cell{Value: "—"}
			continue
		}
		out[i].Value = c.Label()
		out[i].Title = "± is where the next search of this build on this machine lands (95 %)"
		if i == 0 {
			continue
		}
		change, cmp, ok := report.CapacityChange(runs[0].Results, r.Results)
		if !ok {
			continue
		}
		out[i].Delta, out[i].Title = change, string(cmp.Method)
		switch {
		case !cmp.Significant():
			out[i].Class = "noise"
		case centre(r.Results) > centre(runs[0].Results):
			out[i].Class = "better"
		default:
			out[i].Class = "worse"
		}
	}
	return metricRow{"Capacity (TPS)", out}
}

// centre is a run's capacity (0 without a search).
func centre(r *report.Results) float64 {
	c, _ := report.CapacityOf(r)
	return c.TPS
}

// fold splits the rows of what changed into those a reader should see and the per-run facts.
func fold(changed []diffRow) (shown, folded []diffRow) {
	for _, row := range changed {
		if perRun(row) {
			folded = append(folded, row)
		} else {
			shown = append(shown, row)
		}
	}
	return shown, folded
}

// txNames are the transactions of every run: in the baseline's order, then any the others add.
func txNames(runs []Run) []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, t := range r.Results.Transactions {
			if !seen[t.Name] {
				seen[t.Name] = true
				names = append(names, t.Name)
			}
		}
	}
	return names
}
