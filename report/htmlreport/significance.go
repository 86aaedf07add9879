package htmlreport

import (
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
	"\"~\" marks no significant difference, with its p-value and the number of runs or batches."

// loadSettingKeys are the settings that choose the load itself: a run with other values of them
// is another experiment, and its differences are labelled as settings, not as regressions.
var loadSettingKeys = []string{"settings.users", "settings.rate", "settings.think", "settings.model",
	"settings.mode", "settings.max_in_flight", "settings.iterations", "settings.keep_connections",
	"disclosure.configuration.access.mode", "disclosure.configuration.orders.mode"}

// isLoadSetting reports whether a flattened key is one of the settings that choose the load
// (the workload's own settings, settings.workload.*, are all such choices).
func isLoadSetting(key string) bool {
	return slices.Contains(loadSettingKeys, key) || strings.HasPrefix(key, "settings.workload.")
}

// perRunKey matches the facts that differ on every run whatever was changed: ids, seeds drawn at
// random, addresses and ports picked by the system, start times, uptimes, process ids, counters.
var perRunKey = regexp.MustCompile(`(^|\.)(run_id|seed|pid|pids|uptime[a-z_]*|started[a-z_]*|[a-z_]*_at|listen|[a-z_]*_addr|addr|[a-z_]*_url|url|port|published|command)$`)

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

// settingChanges lists, for each run, the load settings it changed from the baseline's
// ("users 20 → 50").
func settingChanges(changed []diffRow, n int) [][]string {
	out := make([][]string, n)
	for _, row := range changed {
		if !isLoadSetting(row.Key) {
			continue
		}
		for i := 1; i < n; i++ {
			if row.Changed[i] {
				out[i] = append(out[i], strings.TrimPrefix(strings.TrimPrefix(row.Key, "settings."), "disclosure.configuration.")+" "+row.Values[0]+" → "+row.Values[i])
			}
		}
	}
	return out
}

// statCells lays out one headline metric across runs: each run's value (the median of its runs
// when repeated, with the range), and against the baseline the change, coloured only when
// significant, "~ (p=… n=…)" when not, and labelled as a setting when the run changed a load
// setting.
func statCells(runs []Run, m report.Metric, settings [][]string) []cell {
	out := make([]cell, len(runs))
	centre := make([]float64, len(runs))
	for i, r := range runs {
		vals := r.Results.RunValues(m)
		s := stats.Summarize(vals)
		centre[i] = s.Median
		out[i].Value = report.FormatMetric(m, s.Median)
		if s.N > 1 {
			out[i].Title = "median of " + strconv.Itoa(s.N) + " runs; 95 % interval [" + report.FormatMetric(m, s.Lo) + ", " + report.FormatMetric(m, s.Hi) + "], range " + report.FormatMetric(m, s.Min) + " – " + report.FormatMetric(m, s.Max)
			out[i].Range = "range " + report.FormatMetric(m, s.Min) + " – " + report.FormatMetric(m, s.Max)
		}
		if i == 0 {
			continue
		}
		c := report.Compare(runs[0].Results, r.Results, m)
		d := relative(centre[0], centre[i], m)
		shown := d + " (" + c.PString() + ")"
		if !c.Significant() {
			shown = c.Noise()
		}
		switch {
		case len(settings[i]) > 0:
			// the test is still shown, but a chosen setting is not a regression: grey, not red
			out[i].Delta = shown + " · setting changed"
			out[i].Class = "setting"
			out[i].Title = "not a regression: this run changed " + strings.Join(settings[i], ", ") + "; " + d + " (" + string(c.Method) + ")"
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
	return stats.Summarize(r.RunValues(m)).Median
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

// repeatedTxCells tests one transaction's metric across repeated runs (benchstat's U test);
// single runs have no per-transaction series to test, so their change is shown uncoloured.
func repeatedTxCells(runs []Run, name string, of func(report.Transaction) float64, f func(float64) string, higher bool) []cell {
	out := make([]cell, len(runs))
	per := make([][]float64, len(runs))
	for i, r := range runs {
		res := r.Results
		if len(res.Repeats) > 1 {
			for _, rep := range res.Repeats {
				for _, t := range rep.Transactions {
					if t.Name == name {
						per[i] = append(per[i], of(t))
					}
				}
			}
		} else if t, ok := res.Transaction(name); ok {
			per[i] = []float64{of(t)}
		}
		if len(per[i]) == 0 {
			out[i].Value = "—"
			continue
		}
		s := stats.Summarize(per[i])
		out[i].Value = f(s.Median)
		if i == 0 || len(per[0]) == 0 {
			continue
		}
		base := stats.Summarize(per[0]).Median
		d, _ := delta(base, s.Median, higherBetter)
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
