package report

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/tradebench/tradebench/internal/logsafe"
	"github.com/tradebench/tradebench/report/stats"
)

// WriteComparison prints a baseline and another run side by side, metric by metric, as the
// compare page's table does and benchstat prints: each side's median, and the change only when
// it is significant (with its p-value), else "~ (p=… n=…)"; a percentile without enough samples
// in some run's window is "—".
func WriteComparison(w io.Writer, base, other *Results) {
	w = logsafe.TerminalWriter(w) // the labels are a results file's: anyone's
	fmt.Fprintf(w, "\nA: %s\nB: %s\n  %-18s %12s %12s  %s\n", base.Name(), other.Name(), "", "A", "B", "B vs A")
	for _, m := range HeadlineMetrics {
		if m.Unit == "hits/s" && base.Hits == 0 && other.Hits == 0 {
			continue
		}
		if !base.RepeatsHaveSamples(m) || !other.RepeatsHaveSamples(m) {
			fmt.Fprintf(w, "  %-18s %12s %12s  %s\n", m.Name, "—", "—", NotEnoughSamples)
			continue
		}
		a, b := stats.Summarize(base.RunValues(m)).Median, stats.Summarize(other.RunValues(m)).Median
		c := Compare(base, other, m)
		shown := c.Noise()
		if c.Significant() {
			shown = relativeChange(a, b) + " (" + c.PString() + ")"
		}
		fmt.Fprintf(w, "  %-18s %12s %12s  %s\n", m.Name, FormatMetric(m, a), FormatMetric(m, b), shown)
	}
}

// relativeChange is b against a in percent: "+12.5 %", "-3.0 %".
func relativeChange(a, b float64) string {
	if a == 0 {
		if b == 0 {
			return "±0"
		}
		return "new"
	}
	rel := 100 * (b - a) / math.Abs(a)
	s := strconv.FormatFloat(rel, 'f', 1, 64) + " %"
	if rel > 0 {
		s = "+" + s
	}
	return s
}
