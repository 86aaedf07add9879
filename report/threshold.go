package report

import (
	"fmt"
	"strings"
)

// Threshold is a pass/fail criterion on a run's measured window.
type Threshold struct {
	Name  string // e.g. "max_error_rate", "max_p90_ms"
	Limit float64
	// Max: the actual value must not exceed Limit; otherwise it must reach at least Limit.
	Max    bool
	actual func(*Results) float64
}

// MaxErrorRate: failed transactions / all transactions must be at most rate (a fraction, 0.01 = 1%).
func MaxErrorRate(rate float64) Threshold {
	return Threshold{Name: "max_error_rate", Limit: rate, Max: true, actual: (*Results).ErrorRate}
}

// MaxP90Ms: the 90th percentile over all transactions must be at most ms milliseconds.
func MaxP90Ms(ms float64) Threshold {
	return Threshold{Name: "max_p90_ms", Limit: ms, Max: true, actual: func(r *Results) float64 { return r.Total.P90Ms }}
}

// MaxP99Ms: the 99th percentile over all transactions must be at most ms milliseconds.
func MaxP99Ms(ms float64) Threshold {
	return Threshold{Name: "max_p99_ms", Limit: ms, Max: true, actual: func(r *Results) float64 { return r.Total.P99Ms }}
}

// MinTPS: passed transactions per second must be at least tps.
func MinTPS(tps float64) Threshold {
	return Threshold{Name: "min_tps", Limit: tps, actual: func(r *Results) float64 { return r.Total.TPS }}
}

// CheckThresholds evaluates ts into r.Thresholds and returns a *ThresholdsFailed error when any
// fails (nil when all pass).
func (r *Results) CheckThresholds(ts []Threshold) error {
	r.Thresholds = r.Thresholds[:0]
	var failed []ThresholdResult
	for _, t := range ts {
		a := t.actual(r)
		ok := a >= t.Limit
		if t.Max {
			ok = a <= t.Limit
		}
		tr := ThresholdResult{Name: t.Name, Limit: t.Limit, Actual: a, Passed: ok}
		r.Thresholds = append(r.Thresholds, tr)
		if !ok {
			failed = append(failed, tr)
		}
	}
	if len(failed) > 0 {
		return &ThresholdsFailed{Failed: failed}
	}
	return nil
}

// ThresholdsFailed is the error of a run that completed but missed a threshold: a type of its
// own, so callers (the command line's exit status) can tell "the system was too slow" from "the
// run could not be done".
type ThresholdsFailed struct{ Failed []ThresholdResult }

func (e *ThresholdsFailed) Error() string {
	parts := make([]string, len(e.Failed))
	for i, f := range e.Failed {
		op := ">="
		if strings.HasPrefix(f.Name, "max_") {
			op = "<="
		}
		parts[i] = fmt.Sprintf("%s: %g, required %s %g", f.Name, f.Actual, op, f.Limit)
	}
	return "thresholds failed: " + strings.Join(parts, "; ")
}

// String is the criterion as a reader states it, e.g. "max_error_rate ≤ 0.0001".
func (t Threshold) String() string {
	op := "≥"
	if t.Max {
		op = "≤"
	}
	return fmt.Sprintf("%s %s %g", t.Name, op, t.Limit)
}
