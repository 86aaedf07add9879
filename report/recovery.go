package report

import (
	"fmt"
	"math"
	"slices"
)

// What a fault cost beyond its errors: how long throughput took to come back and how slow the
// requests were meanwhile. Both are read from the per-second series, so results written before
// they were recorded can be measured again (Results.MeasureFaults).
//
// Recovery is defined on the measured window's seconds (phase steady):
//   - the baseline is the median throughput of the seconds outside every fault window (each
//     widened by FaultSlack); at least RecoveryBaseline of them, else recovery is not measured;
//   - the noise is the spread of those seconds (1.4826 × their median absolute deviation, the
//     standard deviation's robust estimate), at least √baseline (the counting noise of a
//     second of that many transactions);
//   - the floor is the baseline less RecoveryBand noises: a second at or above it is within
//     the steady state's noise;
//   - throughput recovered at the start of the first second, among those holding time after
//     the fault's start, from which every second is at or above the floor through the second
//     holding the window's end and for at least RecoveryHold seconds in all; the recovery
//     time is from the window's start to then (0 when throughput never left the noise);
//   - "not recovered" when no such second exists before the measured window ends.
//
// The worst latency is the highest per-second p99 among the seconds whose errors the window
// counts (the window widened by FaultSlack).

// Recovery's parameters (see above).
const (
	RecoveryHold     = 3 // seconds in a row within the noise
	RecoveryBand     = 3 // the floor is the baseline less this many noises
	RecoveryBaseline = 5 // the fewest seconds outside the windows to take a baseline from
)

// MeasureFaults sets each fault's recovery and worst latency from the series (AddFaults calls
// it once every fault is recorded: the baseline leaves out every window).
func (r *Results) MeasureFaults() {
	floor, ok := r.recoveryFloor()
	for i := range r.Faults {
		f := &r.Faults[i]
		f.WorstP99Ms = r.worstP99(*f)
		f.FloorTPS, f.Recovered, f.RecoveryS = 0, false, 0
		if !ok {
			continue
		}
		f.FloorTPS = math.Round(floor*10) / 10
		f.RecoveryS, f.Recovered = r.recovery(*f, floor)
	}
}

// inAnyWindow: the series' second t lies in a fault window widened by FaultSlack.
func (r *Results) inAnyWindow(t int) bool {
	for _, f := range r.Faults {
		if secondOverlaps(t, f.StartS-FaultSlack.Seconds(), f.EndS+FaultSlack.Seconds()) {
			return true
		}
	}
	return false
}

// recoveryFloor is the throughput a second must reach to be within the steady state's noise;
// false when too few measured seconds lie outside the windows, or the noise reaches zero.
func (r *Results) recoveryFloor() (float64, bool) {
	var base []float64
	for _, p := range r.Series {
		if p.Phase == "steady" && !r.inAnyWindow(p.Second) {
			base = append(base, p.TPS)
		}
	}
	if len(base) < RecoveryBaseline {
		return 0, false
	}
	med := median(base)
	dev := make([]float64, len(base))
	for i, v := range base {
		dev[i] = math.Abs(v - med)
	}
	noise := max(1.4826*median(dev), math.Sqrt(med))
	floor := med - RecoveryBand*noise
	return floor, floor > 0
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// recovery is the seconds from f's start until throughput was back above floor for good (see
// the definition at the top of this file); false when it never was within the measured window.
func (r *Results) recovery(f Fault, floor float64) (float64, bool) {
	var pts []SeriesPoint // the measured seconds holding time after the fault's start
	for _, p := range r.Series {
		if p.Phase == "steady" && float64(p.Second) > f.StartS {
			pts = append(pts, p)
		}
	}
	// the second holding the window's end: t-1 ≤ EndS < t
	endSecond := int(math.Floor(f.EndS)) + 1
	for i := range pts {
		j, good := i, 0
		for ; j < len(pts); j++ {
			if pts[j].TPS < floor || (j > i && pts[j].Second != pts[j-1].Second+1) {
				break
			}
			good++
			if good >= RecoveryHold && pts[j].Second >= endSecond {
				back := float64(pts[i].Second - 1) // the start of the first good second
				return math.Round(max(0, back-f.StartS)*1000) / 1000, true
			}
		}
	}
	return 0, false
}

// worstP99 is the highest per-second p99 in the seconds whose errors f counts.
func (r *Results) worstP99(f Fault) float64 {
	var worst float64
	lo, hi := f.StartS-FaultSlack.Seconds(), f.EndS+FaultSlack.Seconds()
	for _, p := range r.Series {
		if p.Phase == "steady" && secondOverlaps(p.Second, lo, hi) {
			worst = max(worst, p.P99Ms)
		}
	}
	return worst
}

// RecoveryText says how long throughput took to recover from f, for the summary and the report.
func (f Fault) RecoveryText() string {
	switch {
	case f.FloorTPS == 0:
		return "recovery not measured (too few measured seconds outside the fault windows, or throughput within their noise of zero)"
	case !f.Recovered:
		return fmt.Sprintf("not recovered (throughput never back at %g tps for %d s)", f.FloorTPS, RecoveryHold)
	default:
		return fmt.Sprintf("recovered in %.1f s (back at %g tps or more)", f.RecoveryS, f.FloorTPS)
	}
}

// CostText is a fault's cost in one line: its errors, recovery and worst latency.
func (f Fault) CostText() string {
	return fmt.Sprintf("%d errors, %s, worst p99 %s ms", f.Errors, f.RecoveryText(), FormatMs(f.WorstP99Ms))
}
