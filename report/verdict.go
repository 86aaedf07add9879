package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// NotEnoughSamples is what a percentile without enough samples behind it shows instead of a
// number (EnoughSamples).
const NotEnoughSamples = "not enough samples"

// MinSamples is the p99's sample bound the results were judged by (the default when they were
// not judged).
func (r *Results) MinSamples() int64 {
	if v := r.Validity; v != nil {
		for _, x := range v.Rules {
			if x.Rule == RuleSamples && x.Bound > 0 {
				return int64(x.Bound)
			}
		}
	}
	return DefaultRuleMinSamplesP99
}

// PercentileMs is a transaction's percentile p (50, 90, 99) as shown: the value in
// milliseconds, or ok false when too few transactions passed for it to mean anything.
func (r *Results) PercentileMs(t Transaction, p float64) (ms float64, ok bool) {
	if !EnoughSamples(t.Pass, p, r.MinSamples()) {
		return 0, false
	}
	switch p {
	case 50:
		return t.P50Ms, true
	case 90:
		return t.P90Ms, true
	case 95:
		return t.P95Ms, true
	case 99:
		return t.P99Ms, true
	case 99.9:
		return t.P999Ms, true
	}
	return 0, false
}

// percentileCell is the summary table's cell: the value, or "—" (explained under the table).
func (r *Results) percentileCell(t Transaction, p float64) string {
	if v, ok := r.PercentileMs(t, p); ok {
		return FormatMs(v)
	}
	return "—"
}

// VerdictLine is the verdict in one line: "VALID", "INVALID: errors: …; …".
func (v *Validity) VerdictLine() string {
	if v == nil {
		return "not judged"
	}
	if len(v.Reasons) == 0 {
		return strings.ToUpper(v.Verdict)
	}
	parts := make([]string, len(v.Reasons))
	for i, r := range v.Reasons {
		parts[i] = r.String()
	}
	return strings.ToUpper(v.Verdict) + ": " + strings.Join(parts, "; ")
}

// writeVerdict prints the verdict first (with every reason), then a capacity claim's numbers.
func (r *Results) writeVerdict(w io.Writer) {
	v := r.Validity
	if v == nil {
		return
	}
	fmt.Fprintf(w, "\nverdict: %s\n", strings.ToUpper(v.Verdict))
	for _, x := range v.Reasons {
		fmt.Fprintf(w, "  %s %s\n", map[string]string{RuleFail: "✗", RuleInconclusive: "?"}[x.Outcome], x)
	}
	for _, x := range v.Rules {
		if x.Outcome == RuleNotChecked {
			fmt.Fprintf(w, "  · %s\n", x)
		}
	}
	for _, f := range r.Faults {
		fmt.Fprintf(w, "  fault: %s at %.1f–%.1f s of the run: %s\n", f.Name, f.StartS, f.EndS, f.CostText())
	}
	if p := r.Peak; p != nil {
		at := fmt.Sprintf("%d users", p.PeakUsers)
		if p.PeakRate > 0 {
			at = fmt.Sprintf("%g iterations/s", p.PeakRate)
		}
		cpu := fmt.Sprintf("server CPU %.2f cores", p.PeakSUTCPU)
		if parts := SUTParts(r); len(parts) > 1 {
			// the server beside its database: how much of the machine each took at the knee
			cpu += " (" + partsText(parts) + ")"
		}
		if r.SUT == nil {
			cpu = "server CPU not measured (drive --sut-metrics)"
		}
		what := "capacity"
		if v.Verdict == Interrupted && p.Interval == nil {
			// no knee, no confirming run: the best step measured, said to be no capacity
			what = "interrupted, not a capacity — best good step"
		}
		if c, ok := CapacityOf(r); ok && len(c.Searches) > 1 {
			// a repeated run: the median over its searches first, then the last search's own
			fmt.Fprintf(w, "capacity: %s tps, the median of %d searches (%.0f – %.0f)\n", c.Interval(), len(c.Searches),
				slices.Min(c.Searches), slices.Max(c.Searches))
			fmt.Fprintf(w, "  %s\n", c.NextLine())
			what = "last search"
		}
		fmt.Fprintf(w, "%s: %s tps at %s, p90 %s ms, %s (search: %d steps in %.0fs; %s)\n",
			what, p.Capacity(), at, FormatMs(p.PeakP90Ms), cpu, len(p.Steps), p.Seconds, p.StopWhy)
		if l := p.IntervalLine(); l != "" {
			fmt.Fprintf(w, "  %s\n", l)
		}
		if p.Limit != "" {
			fmt.Fprintf(w, "limited by: %s (%s)\n", p.Limit, p.LimitWhy)
		}
	}
}
