package peak

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/tradebench/tradebench/report"
)

// step runs one step at load and records it; why is non-empty when the step is bad. A step
// that measures less throughput than a lower load did, beyond the counting noise, is measured
// again before it is believed (the first measurement stays in the steps, superseded), and the
// second measurement is judged.
func (s *searcher) step(ctx context.Context, phase string, load float64) (res *report.Results, why string, knee bool, err error) {
	res, err = s.measure(ctx, phase, load)
	if res == nil || err != nil || phase == PhaseConfirm {
		return res, "", false, err
	}
	if lower := s.lowerBeyondNoise(load, res); lower != nil {
		first := &s.ps.Steps[len(s.ps.Steps)-1]
		first.Note = fmt.Sprintf("measured %.1f tps, less than %.1f tps at %s beyond the counting noise: measured again",
			res.Total.TPS, lower.res.Total.TPS, s.unit(lower.load))
		first.Superseded = true
		s.extra++
		if res, err = s.measure(ctx, PhaseRemeasure, load); res == nil || err != nil {
			return res, "", false, err
		}
	}
	why, knee = s.record(load, res)
	return res, why, knee, nil
}

// measure runs one step at load and appends it to the steps, unjudged; a step other processes
// disturbed (they took more than MaxOtherShare of the machine) is measured again, up to
// policy.disturbed more times, each disturbed measurement kept as superseded. The last is
// returned: if it is still disturbed, the other_processes rule holds it against the run.
func (s *searcher) measure(ctx context.Context, phase string, load float64) (*report.Results, error) {
	res, err := s.run1(ctx, phase, load, phase == PhaseRemeasure)
	var shares []string
	for res != nil && err == nil {
		share, ok := res.OtherShare()
		if !ok || share <= s.cfg.MaxOtherShare {
			break
		}
		shares = append(shares, fmt.Sprintf("%.1f%%", 100*share))
		st := &s.ps.Steps[len(s.ps.Steps)-1]
		if len(shares) > policy.disturbed {
			st.Note = fmt.Sprintf("disturbed every time: other processes took %s of the machine (above %.0f%%) in %d measurements",
				strings.Join(shares, ", "), 100*s.cfg.MaxOtherShare, len(shares))
			break
		}
		if s.disturbed >= policy.disturbedSearch {
			st.Note = fmt.Sprintf("disturbed: other processes took %.1f%% of the machine (above %.0f%%); "+
				"not measured again: the search already measured %d disturbed steps again", 100*share, 100*s.cfg.MaxOtherShare, s.disturbed)
			break
		}
		s.disturbed++
		st.Superseded = true
		st.Note = fmt.Sprintf("disturbed: other processes took %.1f%% of the machine (above %.0f%%): measured again", 100*share, 100*s.cfg.MaxOtherShare)
		s.extra++
		res, err = s.run1(ctx, phase, load, true)
	}
	return res, err
}

// run1 runs one step at load and appends it to the steps, unjudged; again says it measures
// the last step at load again.
func (s *searcher) run1(ctx context.Context, phase string, load float64, again bool) (*report.Results, error) {
	s.n++
	st := Step{N: s.n, Phase: phase, RampUp: *s.cfg.StepRampUp, Duration: s.cfg.StepDuration}
	if s.cfg.Open {
		st.Rate = load
	} else {
		st.Users = int(load)
	}
	for i := len(s.ps.Steps) - 1; again && i >= 0; i-- {
		if prev := s.ps.Steps[i]; prev.Users == st.Users && prev.Rate == st.Rate {
			st.Of = prev.Step
			break
		}
	}
	if phase == PhaseConfirm {
		st.RampUp, st.Duration = s.cfg.ConfirmRampUp, s.cfg.ConfirmDuration
	}
	res, err := s.run(ctx, st)
	if res == nil {
		if err == nil {
			err = errors.New("step produced no results")
		}
		return nil, err
	}
	if res.SteadySeconds == 0 {
		res.SteadySeconds = st.Duration.Seconds()
	}
	ps := report.PeakStep{Step: st.N, Users: st.Users, Rate: st.Rate, TPS: res.Total.TPS, P90Ms: res.Total.P90Ms, P99Ms: res.Total.P99Ms,
		ErrorRate: res.ErrorRate(), Phase: phase}
	if cpu, ok := report.SUTCPU(res); ok {
		ps.SUTCPU = math.Round(cpu*1000) / 1000
	}
	if share, ok := res.OtherShare(); ok {
		ps.OtherShare = share
	}
	if d := res.Driver; d != nil {
		ps.DriverCPU = d.Utilisation
	}
	s.ps.Steps = append(s.ps.Steps, ps)
	return res, err
}

// record judges the step just run (the last in the steps) and keeps it.
func (s *searcher) record(load float64, res *report.Results) (why string, knee bool) {
	why, knee, flat, kind := s.judge(load, res)
	s.ps.Steps[len(s.ps.Steps)-1].Good = why == ""
	s.keep(judged{point{load, res}, why, kind, knee, flat})
	return why, knee
}

// keep makes j the search's verdict at its load.
func (s *searcher) keep(j judged) {
	a := s.at(j.load)
	if j.within() {
		s.within = append(s.within, j.point)
		a.measured = j.res
	}
	a.verdict = &j
}

// setBad makes j the first bad step.
func (s *searcher) setBad(j judged) {
	s.bad = &point{j.load, j.res}
	s.badWhy, s.badKind, s.ps.Knee = j.why, j.kind, j.knee
}

// noise is the standard error of a step's throughput: the larger of the counting noise (a
// count of n transactions varies by about √n) and the spread of its per-second throughput
// (the standard deviation of its seconds over √seconds).
func noise(res *report.Results) float64 {
	d := res.SteadySeconds
	if d <= 0 {
		return 0
	}
	se := math.Sqrt(float64(res.Total.Pass)) / d
	var xs []float64
	for _, p := range res.Series {
		if p.Phase == "steady" {
			xs = append(xs, p.TPS)
		}
	}
	if len(xs) >= 2 {
		var mean, ss float64
		for _, x := range xs {
			mean += x
		}
		mean /= float64(len(xs))
		for _, x := range xs {
			ss += (x - mean) * (x - mean)
		}
		se = max(se, math.Sqrt(ss/float64(len(xs)-1)/float64(len(xs))))
	}
	return se
}

// differ reports whether two throughputs differ beyond their noise: by more than twice the
// standard error of their difference (about 95 %).
func differ(a, b *report.Results) bool {
	na, nb := noise(a), noise(b)
	return math.Abs(a.Total.TPS-b.Total.TPS) > 2*math.Sqrt(na*na+nb*nb)
}

// lowerBeyondNoise is a lower load within the bounds whose throughput was higher than res's
// beyond the noise (nil: none) — at most policy.lower re-measurements per load.
func (s *searcher) lowerBeyondNoise(load float64, res *report.Results) *point {
	a := s.at(load)
	if a.lowerAgain >= policy.lower {
		return nil
	}
	for i := range s.within {
		p := &s.within[i]
		if p.load < load && p.res.Total.TPS > res.Total.TPS && differ(p.res, res) {
			a.lowerAgain++
			return p
		}
	}
	return nil
}

// judge says why a step at load is bad ("" when good), whether that is the knee (throughput
// stopped rising or latency crossed its bound) rather than an error bound, and what kind of
// bad it was (LimitErrors, LimitP90, or "" for flat throughput). flat: the step was bad only
// because its throughput did not rise (it is within the bounds).
func (s *searcher) judge(load float64, res *report.Results) (why string, knee, flat bool, kind string) {
	why, knee, flat, kind = s.verdict(load, res)
	if why == "" {
		s.bestPer = max(s.bestPer, res.Total.TPS/load)
	}
	return why, knee, flat, kind
}

// verdict is judge without keeping anything: a second measurement is judged by the same rule.
func (s *searcher) verdict(load float64, res *report.Results) (why string, knee, flat bool, kind string) {
	unit := s.unit(load)
	if er := res.ErrorRate(); er > s.cfg.MaxErrorRate || res.Total.Pass == 0 {
		return fmt.Sprintf("error rate %.4f%% at %s is above %.4f%%", 100*er, unit, 100*s.cfg.MaxErrorRate), false, false, LimitErrors
	}
	if s.cfg.MaxP90 > 0 && res.Total.P90Ms > float64(s.cfg.MaxP90)/float64(time.Millisecond) {
		return fmt.Sprintf("p90 %.1f ms at %s crossed the %v bound", res.Total.P90Ms, unit, s.cfg.MaxP90), true, false, LimitP90
	}
	per := res.Total.TPS / load
	if s.bestPer > 0 && per < s.cfg.Efficiency*s.bestPer {
		return fmt.Sprintf("throughput stopped rising: %.1f tps at %s is %.0f%% of the load's best rate (%.3g tps per %s)",
			res.Total.TPS, unit, 100*per/s.bestPer, s.bestPer, s.perWhat()), true, true, ""
	}
	return "", false, false, ""
}

func (s *searcher) perWhat() string {
	if s.cfg.Open {
		return "iteration/s"
	}
	return "user"
}

func (s *searcher) unit(load float64) string {
	if s.cfg.Open {
		return fmt.Sprintf("%g/s", load)
	}
	return fmt.Sprintf("%d users", int(load))
}

// unit1 is the smallest step of load: one user, or 0.1 arrival a second.
func (s *searcher) unit1() float64 {
	if s.cfg.Open {
		return 0.1
	}
	return 1
}

// round makes a load a step can run: whole users in the closed model, a rate to 0.1/s.
func (s *searcher) round(load float64) float64 {
	if s.cfg.Open {
		return math.Max(0.1, math.Round(load*10)/10)
	}
	return math.Max(1, math.Round(load))
}
