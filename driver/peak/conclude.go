package peak

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/report/stats"
)

// conclude ends a search that bracketed the knee or stopped short of it (the state
// confirming): it states why the search stopped, picks the peak on the plateau and confirms it
// with one longer measured run, whose results are the search's.
func (s *searcher) conclude(ctx context.Context) (*report.PeakSearch, *report.Results, error) {
	ps, cfg := s.ps, s.cfg
	if s.bad != nil {
		ps.StopWhy = fmt.Sprintf("knee between %s (last good) and %s: %s", s.unit(s.good.load), s.unit(s.bad.load), s.badWhy)
		if len(s.moves) > 0 {
			ps.StopWhy += "; re-measurement moved the knee (" + strings.Join(s.moves, "; ") + ")"
		}
	}
	peak, top := s.plateau()
	if peak != s.good.load {
		ps.StopWhy += fmt.Sprintf("; the peak is %s, the least load within %.0f%% of the best throughput (%.1f tps)", s.unit(peak), 100*cfg.Plateau, top)
	}
	// confirm at the peak with one longer measured run
	best, _, _, err := s.step(ctx, PhaseConfirm, peak)
	if best == nil {
		return ps, nil, err
	}
	ps.PeakStep = s.n
	ps.PeakTPS = best.Total.TPS
	ps.PeakP90Ms = best.Total.P90Ms
	if cfg.Open {
		ps.PeakRate = peak
	} else {
		ps.PeakUsers = int(peak)
	}
	ps.PeakSUTCPU = ps.Steps[len(ps.Steps)-1].SUTCPU
	best.Peak = ps
	if err != nil {
		ps.StopWhy = "interrupted during the confirming run"
		return ps, best, err
	}
	s.confirm(peak, best)
	ps.Limit, ps.LimitWhy = s.limit(best)
	return ps, best, nil
}

// plateau is the peak: the least load within the bounds, and not past the last good step (the
// stated bracket), whose throughput is within Plateau of the best such a load reached (top) —
// the peak throughput at the lowest load, where response times just begin to climb.
func (s *searcher) plateau() (peak, top float64) {
	peak = math.Inf(1)
	for _, p := range s.within {
		if p.load <= s.good.load && s.verdictAt(p.load).within() {
			top = max(top, s.measuredAt(p.load).Total.TPS)
		}
	}
	for _, p := range s.within {
		if p.load <= s.good.load && s.verdictAt(p.load).within() && s.measuredAt(p.load).Total.TPS >= (1-s.cfg.Plateau)*top {
			peak = min(peak, p.load)
		}
	}
	return peak, top
}

// Interrupted begins the stop reason of a search stopped before its end (Ctrl-C).
const Interrupted = "interrupted"

// interrupted records a search stopped before it found its knee: its peak is the best good step
// it measured (the most throughput of a step judged good), said to be no capacity.
func (s *searcher) interrupted() {
	ps := s.ps
	ps.StopWhy = Interrupted + " before the knee was found"
	var best *report.PeakStep
	for i, st := range ps.Steps {
		if st.Good && !st.Superseded && st.Phase != PhaseConfirm && (best == nil || st.TPS > best.TPS) {
			best = &ps.Steps[i]
		}
	}
	if best == nil {
		ps.StopWhy += ": no step measured good"
		return
	}
	ps.PeakTPS, ps.PeakUsers, ps.PeakRate, ps.PeakStep, ps.PeakP90Ms, ps.PeakSUTCPU = best.TPS, best.Users, best.Rate, best.Step, best.P90Ms, best.SUTCPU
	ps.StopWhy += fmt.Sprintf(": the best good step measured was step %d, %.1f tps at %s (not a capacity: the search did not reach its knee)",
		best.Step, best.TPS, s.unit(best.Rate+float64(best.Users)))
}

// confirm states the capacity's interval (batch means of the confirming run's per-second
// throughput) and checks that the confirming run agrees with the search at the peak's load
// within the noise of both.
func (s *searcher) confirm(peak float64, best *report.Results) {
	ps := s.ps
	var series []float64
	for _, p := range best.Series {
		if p.Phase == "steady" {
			series = append(series, p.TPS)
		}
	}
	half := 2 * noise(best)
	if iv, ok := stats.SeriesInterval(series); ok {
		half = iv.Half
	}
	ps.PeakTPSHalf = math.Round(half*10) / 10
	ps.Interval = s.interval(peak, best, half)
	search := s.measuredAt(peak)
	if search == nil {
		return
	}
	tol := math.Hypot(half, 2*noise(search))
	if d := best.Total.TPS - search.Total.TPS; math.Abs(d) > tol {
		ps.Doubt = append(ps.Doubt, fmt.Sprintf("the confirm run disagrees with the search: %.1f ± %.1f tps at %s against %.1f tps in the search "+
			"(a difference of %.1f, beyond the noise of ±%.1f)",
			best.Total.TPS, half, s.unit(peak), search.Total.TPS, d, tol))
	}
}

// interval states where a second search lands (report.CapacityInterval): about the confirming
// run's throughput, its noise (half), the search's own resolution — the least and most
// throughput measured at the peak's load, the last good one and the first bad one (unless bad
// by its errors: what an erring server delivered is not its capacity) — and the run-to-run
// spread: the one given, else report.DefaultRunSpread assumed, unless the search's own
// re-measurements at one load spread more.
func (s *searcher) interval(peak float64, best *report.Results, half float64) *report.CapacityInterval {
	x := best.Total.TPS
	loads := []float64{peak, s.good.load}
	if s.bad != nil && s.badKind != LimitErrors {
		loads = append(loads, s.bad.load)
	}
	lo, hi := x, x
	at := map[float64][]float64{peak: {x}} // the measurements at each load, the confirming run's at the peak
	for _, st := range s.ps.Steps {
		if st.Superseded || st.Phase == PhaseConfirm {
			continue
		}
		l := st.Rate + float64(st.Users)
		at[l] = append(at[l], st.TPS)
		if slices.Contains(loads, l) && st.ErrorRate <= s.cfg.MaxErrorRate {
			lo, hi = min(lo, st.TPS), max(hi, st.TPS)
		}
	}
	// the spread of the loads measured more than once, pooled
	var ss float64
	var df int
	for _, xs := range at {
		if len(xs) < 2 {
			continue
		}
		mean := 0.0
		for _, v := range xs {
			mean += v
		}
		mean /= float64(len(xs))
		for _, v := range xs {
			ss += (v - mean) * (v - mean)
		}
		df += len(xs) - 1
	}
	rem := 0.0
	if df > 0 {
		rem = math.Sqrt(ss / float64(df))
	}
	return report.NewCapacityInterval(x, half, lo, hi, rem, s.cfg.RunSpread)
}

// limit names what limited the capacity, and says why.
func (s *searcher) limit(best *report.Results) (string, string) {
	ps, cfg, bad := s.ps, s.cfg, s.bad
	// other processes first: on a busy machine nothing else can be told
	for _, st := range ps.Steps {
		if !st.Superseded && st.OtherShare > cfg.MaxOtherShare && (bad != nil && st.Rate+float64(st.Users) >= s.good.load || st.Phase == PhaseConfirm) {
			return LimitOther, fmt.Sprintf("other processes took %.0f%% of the machine during step %d (%s), above %.0f%%",
				100*st.OtherShare, st.Step, s.unit(st.Rate+float64(st.Users)), 100*cfg.MaxOtherShare)
		}
	}
	if bad == nil {
		if s.good.load >= cfg.Max {
			return LimitMax, fmt.Sprintf("throughput still rose at the maximum of %s", s.unit(cfg.Max))
		}
		return LimitSteps, fmt.Sprintf("throughput still rose after %d steps", cfg.MaxSteps)
	}
	switch s.badKind {
	case LimitErrors:
		return LimitErrors, fmt.Sprintf("errors above %.4f%% from %s", 100*cfg.MaxErrorRate, s.unit(bad.load))
	case LimitP90:
		return LimitP90, fmt.Sprintf("p90 above %v from %s", cfg.MaxP90, s.unit(bad.load))
	}
	cores := 0.0
	switch {
	case best.Machine != nil:
		cores = float64(best.Machine.Cores)
	case best.System != nil:
		cores = float64(best.System.CPUs)
	}
	shared := best.Driver != nil && best.Driver.SharedWithSUT
	if cpu, ok := report.SUTCPU(best); ok && cores > 0 && cpu >= SUTSaturated*cores {
		why := fmt.Sprintf("the server used %.2f of %g cores at the peak", cpu, cores)
		if shared {
			why += " (with the driver, in one process)"
		}
		return LimitServerCPU, why
	}
	if d := best.Driver; d != nil && !shared && d.Utilisation >= DriverSaturated {
		return LimitDriverCPU, fmt.Sprintf("the driver used %.0f%% of its %d cores at the peak", 100*d.Utilisation, d.Cores)
	}
	why := "throughput stopped rising with CPU to spare: a lock, the database, the network or the target's own limit"
	if cpu, ok := report.SUTCPU(best); ok && cores > 0 {
		why = fmt.Sprintf("throughput stopped rising with the server at %.2f of %g cores: "+
			"a lock, the database, the network or another limit outside the CPU", cpu, cores)
	}
	return LimitUnknown, why
}
