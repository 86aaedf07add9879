package htmlreport

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/report/stats"
)

// MethodLine is the one line the comparison page states its method in.
const MethodLine = "A difference is coloured only when it is statistically significant (p < 0.05): " +
	"between repeated runs (--repeat) by a Mann–Whitney U test over the runs, as Go's benchstat does; " +
	"between single runs by a Welch t test over batch means of the steady state's per-second series, " +
	"which allows for their autocorrelation but not for run-to-run drift. " +
	"A capacity is tested against the spread its interval states (where a second search of the same build lands), " +
	"between repeated searches by a Welch t test over their capacities. " +
	"\"~\" marks no significant difference, with its p-value and the number of runs or batches."

// loadSettingKeys are the settings that choose the offered load: users (closed model), arrival
// rate (open model), think time, and the model that picks between the first two. A run at
// another load has another throughput by design, so its throughput is shown but not coloured;
// its response times and errors are still tested, as measured at that load.
var loadSettingKeys = []string{"settings.users", "settings.rate", "settings.think", "settings.model"}

// systemVariantKeys are the system variants a comparison is made to tell apart: how the web
// tier reaches its services, how orders are processed, the database. Their differences are the
// point of the comparison, so they are coloured like any other, significance deciding.
var systemVariantKeys = []string{"disclosure.configuration.access.mode", "disclosure.configuration.orders.mode",
	"disclosure.configuration.store.kind", "disclosure.software.database"}

// isLoadSetting reports whether a flattened key is one of the settings that choose the load.
func isLoadSetting(key string) bool { return slices.Contains(loadSettingKeys, key) }

// isSystemVariant reports whether a flattened key is one of the system variants compared.
func isSystemVariant(key string) bool { return slices.Contains(systemVariantKeys, key) }

// isThroughput reports whether a headline metric counts work done per second: the metrics a
// changed offered load makes incomparable.
func isThroughput(m report.Metric) bool {
	return m.Name == report.MetricTPS.Name || m.Name == report.MetricHits.Name
}

// perRunKey matches the facts that differ on every run whatever was changed: ids, seeds drawn at
// random, addresses and ports picked by the system, start times, uptimes, process ids, counters.
var perRunKey = regexp.MustCompile(`(^|\.)(run_id|seed|pid|pids|uptime[a-z_]*|started[a-z_]*|[a-z_]*_at|` +
	`listen|[a-z_]*_addr|addr|[a-z_]*_url|url|port|published|command)$`)

// portOf matches the port of an address.
var portOf = regexp.MustCompile(`:\d+\b`)

// perRun reports whether a row of "what changed" is a per-run fact, folded away by default. The
// data set's seed is a choice, not a per-run draw, and stays visible; a target differs per run
// when only its port does (a server started for the run on a free port).
func perRun(row diffRow) bool {
	switch {
	case strings.HasSuffix(row.Key, "data_set.seed"):
		return false
	case row.Key == "target":
		for _, v := range row.Values[1:] {
			if portOf.ReplaceAllString(v, ":PORT") != portOf.ReplaceAllString(row.Values[0], ":PORT") {
				return false
			}
		}
		return true
	}
	return perRunKey.MatchString(row.Key)
}

// changesOf lists, for each run, the changes from the baseline's of the keys that is picks
// ("users 20 → 50", "access.mode inprocess → rest").
func changesOf(changed []diffRow, n int, is func(string) bool) [][]string {
	out := make([][]string, n)
	for _, row := range changed {
		if !is(row.Key) {
			continue
		}
		for i := 1; i < n; i++ {
			if row.Changed[i] {
				out[i] = append(out[i], shortKey(row.Key)+" "+row.Values[0]+" → "+row.Values[i])
			}
		}
	}
	return out
}

// shortKey names a setting as a reader knows it: "users", "access.mode", "database".
func shortKey(key string) string {
	for _, p := range []string{"settings.", "disclosure.configuration.", "disclosure.software."} {
		if k, ok := strings.CutPrefix(key, p); ok {
			return k
		}
	}
	return key
}

// loadNotes say once, above the tables, which runs offered another load than the baseline and
// so have their throughput shown uncoloured (not a note in every cell).
func loadNotes(runs []Run, load [][]string) []string {
	var out []string
	for i, l := range load {
		if len(l) > 0 {
			out = append(out, runs[i].Label+" offered another load than "+runs[0].Label+" ("+strings.Join(l, ", ")+
				"): throughput follows the offered load, so its throughput is shown uncoloured; its response times and errors are tested "+
				"as measured.")
		}
	}
	return out
}

// statCells lays out one headline metric across runs: each run's value (the median of its runs
// when repeated, with the range), and against the baseline the change, coloured only when
// significant, "~ (p=… n=…)" when not; a throughput metric of a run that offered another load
// (load[i]) is shown uncoloured, as the page says once above the table.
func statCells(runs []Run, m report.Metric, load [][]string) []cell {
	out := make([]cell, len(runs))
	centre := make([]float64, len(runs))
	few := make([]bool, len(runs))
	for i, r := range runs {
		// a percentile without enough samples behind it in every run is shown as "—"
		if few[i] = !r.Results.RepeatsHaveSamples(m); few[i] {
			out[i] = cell{Value: "—", Title: report.NotEnoughSamples}
			centre[i] = math.NaN()
			continue
		}
		vals := r.Results.RunValues(m)
		s := stats.Summarize(vals)
		centre[i] = s.Median
		out[i].Value = report.FormatMetric(m, s.Median)
		if s.N > 1 {
			out[i].Title = "median of " + strconv.Itoa(s.N) + " runs; 95 % interval [" + report.FormatMetric(m,
				s.Lo) + ", " + report.FormatMetric(m, s.Hi) + "], range " + report.FormatMetric(m, s.Min) + " – " + report.FormatMetric(m, s.Max)
			out[i].Range = "range " + report.FormatMetric(m, s.Min) + " – " + report.FormatMetric(m, s.Max)
		}
		if i == 0 || few[0] {
			continue
		}
		c := report.Compare(runs[0].Results, r.Results, m)
		d := relative(centre[0], centre[i], m)
		shown := d + " (" + c.PString() + ")"
		if !c.Significant() {
			shown = c.Noise()
		}
		switch {
		case len(load[i]) > 0 && isThroughput(m):
			// another offered load, another throughput by design: shown, not coloured
			out[i].Delta = d
			out[i].Class = classIncomparable
			out[i].Title = "another offered load (" + strings.Join(load[i], ", ") + "): throughput follows it; " + shown
		case !c.Significant():
			out[i].Delta = shown
			out[i].Class = "noise"
			out[i].Title = d + " is within the noise (" + string(c.Method) + ")"
			if c.Warning != "" {
				out[i].Title += "; " + c.Warning
			}
		default:
			out[i].Delta = shown
			better := centre[i] > centre[0]
			if !m.HigherBetter {
				better = !better
			}
			out[i].Class = "worse"
			if better {
				out[i].Class = "better"
			}
			out[i].Title = "significant: " + string(c.Method)
		}
	}
	return out
}

// centreOf is a run's value of a metric as the pages show it: the median over its runs when
// repeated, else the run's own value.
func centreOf(r *report.Results, m report.Metric) float64 {
	if !r.RepeatsHaveSamples(m) {
		return math.NaN() // not enough samples: no bar
	}
	return stats.Summarize(r.RunValues(m)).Median
}

// txPercentile is a transaction's percentile p in a run, NaN where the transaction had too few
// samples for it.
func txPercentile(p float64) func(*report.Results, report.Transaction) float64 {
	return func(r *report.Results, t report.Transaction) float64 {
		if v, ok := r.PercentileMs(t, p); ok {
			return v
		}
		return math.NaN()
	}
}

// relative is a change as benchstat writes it: "+12.3 %", or in percentage points for a rate.
func relative(base, v float64, m report.Metric) string {
	if m.Unit == "%" {
		d := 100 * (v - base)
		s := strconv.FormatFloat(d, 'f', 4, 64) + " pp"
		if d > 0 {
			s = "+" + s
		}
		return s
	}
	s, _ := delta(base, v, higherBetter)
	return s
}

// classIncomparable is a cell's class for a change that is shown but not judged: the throughput
// of a run at another offered load.
const classIncomparable = "incomparable"

// repeatedTxCells tests one transaction's metric across repeated runs (benchstat's U test);
// single runs have no per-transaction series to test, so their change is shown uncoloured, and
// so is a throughput (throughput true) of a run that offered another load (load[i]).
//
// of reads the metric from one of a run's transactions; a percentile's is NaN where the
// transaction had too few samples for it (txPercentile), and the cell is then "—", not enough
// samples, as in a single run's table.
func repeatedTxCells(runs []Run, name string, of func(*report.Results, report.Transaction) float64, f func(float64) string, higher,
	throughput bool, load [][]string) []cell {
	out := make([]cell, len(runs))
	per := make([][]float64, len(runs))
	few := make([]bool, len(runs))
	for i, r := range runs {
		per[i] = txValues(r.Results, name, of)
		if len(per[i]) == 0 {
			out[i].Value = "—"
			continue
		}
		if few[i] = slices.ContainsFunc(per[i], math.IsNaN); few[i] {
			out[i] = cell{Value: "—", Title: report.NotEnoughSamples}
			continue
		}
		s := stats.Summarize(per[i])
		out[i].Value = f(s.Median)
		if i == 0 || len(per[0]) == 0 || few[0] {
			continue
		}
		base := stats.Summarize(per[0]).Median
		d, _ := delta(base, s.Median, higherBetter)
		if throughput && len(load[i]) > 0 {
			out[i].Delta, out[i].Class = d, classIncomparable
			out[i].Title = "another offered load (" + strings.Join(load[i], ", ") + "): throughput follows it"
			continue
		}
		if len(per[0]) < 2 || len(per[i]) < 2 {
			out[i].Delta = d
			out[i].Title = "single runs: no per-transaction series to test the change against (repeat the runs with --repeat)"
			continue
		}
		c := stats.CompareRuns(per[0], per[i])
		if !c.Significant() {
			out[i].Delta, out[i].Class = c.Noise(), "noise"
			continue
		}
		out[i].Delta = d + " (" + c.PString() + ")"
		if (s.Median > base) == higher {
			out[i].Class = "better"
		} else {
			out[i].Class = "worse"
		}
	}
	return out
}

// txValues is one transaction's metric in each run of a repeated measurement, or in the single
// run (empty when the transaction is not in the run).
func txValues(res *report.Results, name string, of func(*report.Results, report.Transaction) float64) []float64 {
	if len(res.Repeats) > 1 {
		var out []float64
		for _, rep := range res.Repeats {
			for _, t := range rep.Transactions {
				if t.Name == name {
					out = append(out, of(res, t))
				}
			}
		}
		return out
	}
	if t, ok := res.Transaction(name); ok {
		return []float64{of(res, t)}
	}
	return nil
}

// txMedian is a transaction's metric as a comparison's bar shows it: the median over a repeated
// run's runs, as its table cell (nil: not in the run, or too few samples in some run).
func txMedian(res *report.Results, name string, of func(*report.Results, report.Transaction) float64) *float64 {
	vs := txValues(res, name, of)
	if len(vs) == 0 || slices.ContainsFunc(vs, math.IsNaN) {
		return nil
	}
	return val(stats.Summarize(vs).Median)
}
