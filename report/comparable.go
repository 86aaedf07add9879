package report

import (
	"fmt"
	"math"
	"strings"
)

// NotComparable is the error for runs that measure different things (another workload or
// scenario): a comparison of them says nothing about either, so it is refused unless forced.
type NotComparable struct {
	Base, Other   string // the runs' names
	What, Was, Is string
}

func (e *NotComparable) Error() string {
	return fmt.Sprintf("%q and %q are runs of different %ss (%s vs %s): their numbers measure different work and do not compare", e.Base,
		e.Other, e.What, e.Was, e.Is)
}

// Comparable refuses to compare runs of different workloads or scenarios.
func Comparable(base, other *Results) error {
	if base.Workload != other.Workload {
		return &NotComparable{Base: base.Name(), Other: other.Name(), What: "workload", Was: base.Workload, Is: other.Workload}
	}
	if base.Scenario != other.Scenario {
		return &NotComparable{Base: base.Name(), Other: other.Name(), What: "scenario", Was: orNone(base.Scenario), Is: orNone(other.Scenario)}
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// Caveats are the differences between two runs of the same work that a reader must know before
// trusting a comparison of them: a measured window of another length, another data set, a
// different number of repeats.
func Caveats(base, other *Results) []string {
	var out []string
	a, b := base.SteadySeconds, other.SteadySeconds
	if a > 0 && b > 0 && math.Abs(a-b)/math.Max(a, b) > 0.1 {
		out = append(out, fmt.Sprintf("measured windows differ: %.0f s for %s, %.0f s for %s", a, base.Name(), b, other.Name()))
	}
	if da, db := dataSet(base), dataSet(other); da != db {
		out = append(out, fmt.Sprintf("data sets differ: %s for %s, %s for %s", da, base.Name(), db, other.Name()))
	}
	if na, nb := len(base.Repeats), len(other.Repeats); (na > 1) != (nb > 1) {
		out = append(out, fmt.Sprintf("only one of %s (%d runs) and %s (%d runs) was repeated: compared by their per-second series instead",
			base.Name(), max(na, 1), other.Name(), max(nb, 1)))
	}
	return out
}

// dataSet describes the data a run's transactions drew from: the disclosed data set, or the
// scenario's users and quotes parameters.
func dataSet(r *Results) string {
	var parts []string
	if d := r.Disclosure; d != nil && d.DataSet != nil {
		parts = append(parts, fmt.Sprintf("%d accounts, %d quotes, %d holdings each, seed %d", d.DataSet.Accounts, d.DataSet.Quotes,
			d.DataSet.Holdings, d.DataSet.Seed))
	}
	for _, k := range []string{"users", "quotes"} {
		if v, ok := r.Settings.Params[k]; ok {
			parts = append(parts, k+"="+v)
		}
	}
	if len(parts) == 0 {
		return "none recorded"
	}
	return strings.Join(parts, "; ")
}
