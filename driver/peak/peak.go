// Package peak finds a system's capacity the way the StockTrader papers state their method —
// "testing iteratively up to server saturation (when response times just begin to climb)",
// then measuring at the peak — in minutes rather than hours: the load (virtual users in the
// closed model, the arrival rate in the open model) grows geometrically until throughput stops
// rising with it or a bound is crossed, is then bisected between the last good step and the
// first bad one with short steps, and the peak is confirmed by one longer measured run.
//
// A linear step-up (+10 users per 30 s step) cannot finish on a machine whose knee is at 2,000
// users with the papers' 1 s think time; doubling reaches it in a handful of steps and
// bisection narrows it to a few per cent in a few more.
package peak

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/report/stats"
)

// Config is a search's growth, steps and stopping rules. Zero fields take the defaults below
// (Defaults); Validate names the field of an impossible one.
type Config struct {
	// Open searches the arrival rate (iterations/s) instead of virtual users.
	Open bool
	// Start is the first step's load (users, or iterations/s when Open); Max the largest
	// tried.
	Start, Max float64
	// Factor multiplies the load from one growth step to the next (0 = 2: doubling).
	Factor float64
	// StepRampUp and StepDuration are each search step's ramp-up and measured steady state:
	// short, since a step only has to tell "still rising" from "past the knee". StepRampUp is a
	// pointer because no ramp-up at all is a setting a user may choose (`--peak-ramp-up 0s`): nil
	// takes the default, a pointer to 0 starts every step's users at once.
	StepRampUp   *time.Duration
	StepDuration time.Duration
	// ConfirmRampUp and ConfirmDuration are the confirming run's at the peak: its results are
	// the ones reported.
	ConfirmRampUp, ConfirmDuration time.Duration
	// MaxP90 bounds the all-transactions p90 of a good step (0 = none).
	MaxP90 time.Duration
	// MaxErrorRate is the largest error rate of a good step (a fraction; 0 = no error allowed).
	MaxErrorRate float64
	// Efficiency: a step is below the knee while its throughput per unit of load (per user, or
	// per iteration/s) is at least Efficiency times the best a good step showed (0 = 0.9).
	// Below the knee throughput grows with the load and the ratio holds; past it throughput
	// stays flat and the ratio falls — in the closed model, exactly as response times begin to
	// climb (a user's throughput is 1 / (think + response time)).
	Efficiency float64
	// Plateau picks the peak once the knee is bracketed: the least load whose throughput is
	// within Plateau (a fraction; 0 = 0.03) of the best any step within the bounds reached —
	// the peak throughput at the lowest load, where response times just begin to climb.
	Plateau float64
	// Resolution ends the bisection when the first bad load is within Resolution of the last
	// good one (a fraction; 0 = 0.1).
	Resolution float64
	// MaxSteps bounds the search steps, the confirming run and the re-measurements not
	// counted (0 = 14).
	MaxSteps int
	// MaxOtherShare is the share of the machine other processes may take during a step before
	// the search names them as what limited the capacity (0 = 0.1, the run rule's default).
	MaxOtherShare float64
	// RunSpread is the machine's run-to-run spread of a capacity, a fraction of it (the
	// standard deviation between invocations of one build), measured before — by repeated
	// runs or scripts/calibrate — for one search cannot measure it (0 = assume
	// report.DefaultRunSpread, and say so). It widens the capacity's interval
	// (report.CapacityInterval).
	RunSpread float64
}

// Defaults of a search: the embedded run's `tradebench run` finds a 2-core machine's knee
// (near 2,000 users with 1 s think) in about three minutes with them.
const (
	DefaultStart           = 100
	DefaultMax             = 20000
	DefaultFactor          = 2
	DefaultStepRampUp      = 5 * time.Second
	DefaultStepDuration    = 10 * time.Second
	DefaultConfirmRampUp   = 10 * time.Second
	DefaultConfirmDuration = 30 * time.Second
	DefaultEfficiency      = 0.9
	DefaultResolution      = 0.1
	DefaultPlateau         = 0.03
	DefaultMaxSteps        = 14
	DefaultMaxOtherShare   = 0.1
	// SUTSaturated and DriverSaturated are the shares of their cores at which the server and the
	// driver are named as what limited the capacity.
	SUTSaturated    = 0.8
	DriverSaturated = 0.8
	// DefaultMaxP90 and DefaultMaxErrorRate are the command line's bounds (a zero Config has
	// none).
	DefaultMaxP90       = 500 * time.Millisecond
	DefaultMaxErrorRate = 0.0001
)

// SetDefaults fills zero fields with the defaults above (a nil StepRampUp with
// DefaultStepRampUp; a pointer to 0 stays: no ramp-up is a choice). It is the one place a
// search's defaults are filled: Search calls it on its own copy, so a caller calls it only
// where it needs the filled values before the search starts (the driver's Config.SetDefaults,
// once per drive: the drive's Start and Max are checked against what its scenario allows). It
// is idempotent: filling twice changes nothing.
func (c *Config) SetDefaults() {
	set := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	set(&c.Start, DefaultStart)
	set(&c.Max, DefaultMax)
	set(&c.Factor, DefaultFactor)
	set(&c.Efficiency, DefaultEfficiency)
	set(&c.Resolution, DefaultResolution)
	set(&c.Plateau, DefaultPlateau)
	set(&c.MaxOtherShare, DefaultMaxOtherShare)
	setD := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	if c.StepRampUp == nil {
		c.StepRampUp = new(DefaultStepRampUp)
	}
	setD(&c.StepDuration, DefaultStepDuration)
	setD(&c.ConfirmRampUp, DefaultConfirmRampUp)
	setD(&c.ConfirmDuration, DefaultConfirmDuration)
	if c.MaxSteps == 0 {
		c.MaxSteps = DefaultMaxSteps
	}
}

// Validate reports impossible settings, naming the field.
func (c Config) Validate() error {
	switch {
	case c.Start <= 0 || math.IsNaN(c.Start):
		return setting.Errorf("Start", "must be positive, got %g", c.Start)
	case !c.Open && c.Start != math.Trunc(c.Start):
		return setting.Errorf("Start", "is a number of users: a whole number, got %g", c.Start)
	case c.Start > c.Max || math.IsNaN(c.Max):
		return setting.Errorf("Max", "%g is below the search's start (%g)", c.Max, c.Start)
	case c.Factor <= 1 || math.IsNaN(c.Factor):
		return setting.Errorf("Factor", "must be above 1 (the load grows by it each step), got %g", c.Factor)
	case c.StepRampUp != nil && *c.StepRampUp < 0 || c.ConfirmRampUp < 0:
		return setting.Errorf("StepRampUp", "ramp-ups must not be negative")
	case c.StepDuration < 0 || c.ConfirmDuration < 0:
		return setting.Errorf("StepDuration", "durations must be positive")
	case !setting.IsFraction(c.MaxErrorRate):
		return setting.Fraction("MaxErrorRate", c.MaxErrorRate)
	case c.MaxP90 < 0:
		return setting.Errorf("MaxP90", "must not be negative")
	case c.Efficiency <= 0 || c.Efficiency > 1:
		return setting.Errorf("Efficiency", "must be in (0, 1], got %g", c.Efficiency)
	case c.Resolution <= 0 || c.Resolution >= 1:
		return setting.Errorf("Resolution", "must be in (0, 1), got %g", c.Resolution)
	case c.Plateau <= 0 || c.Plateau >= 1:
		return setting.Errorf("Plateau", "must be in (0, 1), got %g", c.Plateau)
	case c.MaxSteps < 2:
		return setting.Errorf("MaxSteps", "must be at least 2, got %d", c.MaxSteps)
	case c.RunSpread < 0 || c.RunSpread >= 1 || math.IsNaN(c.RunSpread):
		return setting.Errorf("RunSpread", "is a fraction of the capacity in [0, 1), got %g", c.RunSpread)
	}
	return nil
}

// Step is one run the search asks for.
type Step struct {
	N     int     // 1-based
	Phase string  // "grow", "shrink", "bisect" or "confirm"
	Users int     // closed model
	Rate  float64 // open model
	// RampUp and Duration are the run's ramp-up and measured steady state.
	RampUp, Duration time.Duration
	// Of is the step this one measures again (a disturbed step, one that measured less than a
	// lower load, a step around the knee); 0 for a first measurement. Progress says so: a
	// search re-measuring looked stuck on "grow 3 (400 users)".
	Of int
}

// Load is the step's load in the search's unit.
func (s Step) Load() float64 {
	if s.Users > 0 {
		return float64(s.Users)
	}
	return s.Rate
}

// RunFunc runs one step and returns its results.
type RunFunc func(ctx context.Context, s Step) (*report.Results, error)

// Search phases.
const (
	PhaseGrow    = "grow"
	PhaseShrink  = "shrink" // the start was past the knee: the load shrinks by Factor
	PhaseBisect  = "bisect"
	PhaseConfirm = "confirm"
	// PhaseRemeasure is a step measured again: it measured less throughput than a lower load
	// beyond the counting noise, or it is one of the two steps around the knee, which must
	// agree on a second measurement before the knee is accepted.
	PhaseRemeasure = "remeasure"
)

// What limited a capacity (report.PeakSearch.Limit).
const (
	LimitServerCPU = "server CPU"
	LimitP90       = "the p90 bound"
	LimitErrors    = "errors"
	LimitDriverCPU = "the driver's CPU"
	LimitOther     = "other processes on the machine"
	LimitUnknown   = "not the CPU" // throughput stopped rising with CPU to spare
	LimitMax       = "the search's maximum load"
	LimitSteps     = "the search's step limit"
)

// MaxDisturbed is how many more times a step is measured when other processes took more than
// MaxOtherShare of the machine during it: a neighbour's burst passes, and one disturbed step
// should not spoil a capacity; a step disturbed every time is kept, and the other_processes rule
// makes the capacity inconclusive.
const MaxDisturbed = 2

// MaxDisturbedSearch bounds the disturbed re-measurements of a whole search: on a machine busy
// throughout, measuring every step three times would triple the search for nothing (the
// other_processes rule makes its capacity inconclusive anyway), so after this many the search
// believes what it measures.
const MaxDisturbedSearch = 6

// MaxKneeMoves is how many times re-measurement may move the knee (a third vote overturning a
// step's first measurement) before the search says the knee does not settle.
const MaxKneeMoves = 3

type point struct {
	load float64
	res  *report.Results
}

// judged is a load's verdict: its first measurement's, or the majority's once voted on.
type judged struct {
	point
	why, kind  string
	knee, flat bool
}

// searcher holds a search in progress.
type searcher struct {
	cfg Config
	run RunFunc
	ps  *report.PeakSearch
	n   int
	// extra counts the re-measurements among the n steps: they do not count against MaxSteps
	extra int
	good  *point // the last good step (below the knee, within the bounds)
	bad   *point // the first bad step above it (nil: none yet)
	// badWhy and badKind say why the first bad step was bad: its error, latency or flat
	// throughput (LimitErrors, LimitP90, or "" for flat)
	badWhy, badKind string
	// bestPer is the best throughput per unit of load of a good step
	bestPer float64
	// within are the steps within the error and latency bounds, good or past the knee
	within []point
	// measured are the measurement within the bounds the search holds at each load: the last,
	// or the majority's where a load was voted on
	measured map[float64]*report.Results
	// verdicts are every load's verdict so far
	verdicts map[float64]judged
	// remeasured are the loads measured again for measuring less than a lower load; settled the
	// loads around the knee already measured twice (or voted on)
	remeasured, settled map[float64]bool
	// moves say how re-measurement moved the knee, for the doubt when it does not settle
	moves []string
	// disturbed counts the measurements made again because other processes disturbed them
	disturbed int
}

// steps is the number of steps run, the re-measurements not counted (MaxSteps bounds it).
func (s *searcher) steps() int { return s.n - s.extra }

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
		first.Note = fmt.Sprintf("measured %.1f tps, less than %.1f tps at %s beyond the counting noise: measured again", res.Total.TPS, lower.res.Total.TPS, s.unit(lower.load))
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
// MaxDisturbed more times, each disturbed measurement kept as superseded. The last is returned:
// if it is still disturbed, the other_processes rule holds it against the run.
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
		if len(shares) > MaxDisturbed {
			st.Note = fmt.Sprintf("disturbed every time: other processes took %s of the machine (above %.0f%%) in %d measurements", strings.Join(shares, ", "), 100*s.cfg.MaxOtherShare, len(shares))
			break
		}
		if s.disturbed >= MaxDisturbedSearch {
			st.Note = fmt.Sprintf("disturbed: other processes took %.1f%% of the machine (above %.0f%%); not measured again: the search already measured %d disturbed steps again", 100*share, 100*s.cfg.MaxOtherShare, s.disturbed)
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
	if j.within() {
		s.within = append(s.within, j.point)
		s.measured[j.load] = j.res
	}
	s.verdicts[j.load] = j
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
// beyond the noise (nil: none) — at most one re-measurement per load.
func (s *searcher) lowerBeyondNoise(load float64, res *report.Results) *point {
	if s.remeasured[load] {
		return nil
	}
	for i := range s.within {
		p := &s.within[i]
		if p.load < load && p.res.Total.TPS > res.Total.TPS && differ(p.res, res) {
			s.remeasured[load] = true
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

// round makes a load a step can run: whole users in the closed model, a rate to 0.1/s.
// unit1 is the smallest step of load: one user, or 0.1 arrival a second.
func (s *searcher) unit1() float64 {
	if s.cfg.Open {
		return 0.1
	}
	return 1
}

func (s *searcher) round(load float64) float64 {
	if s.cfg.Open {
		return math.Max(0.1, math.Round(load*10)/10)
	}
	return math.Max(1, math.Round(load))
}

// Search grows the load from Start to the knee, bisects, and confirms at the peak. It returns
// the search and the confirming run's results with Peak filled in (nil if no step stayed within
// the bounds: the first step was already bad).
func Search(ctx context.Context, cfg Config, run RunFunc) (*report.PeakSearch, *report.Results, error) {
	cfg.SetDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	began := time.Now()
	s := &searcher{cfg: cfg, run: run, ps: &report.PeakSearch{}, measured: map[float64]*report.Results{},
		verdicts: map[float64]judged{}, remeasured: map[float64]bool{}, settled: map[float64]bool{}}
	ps := s.ps
	defer func() { ps.Seconds = math.Round(time.Since(began).Seconds()*10) / 10 }()
	interrupted := func(err error) (*report.PeakSearch, *report.Results, error) {
		s.interrupted()
		return ps, nil, err
	}

	// grow geometrically until a step is bad
	if err := s.grow(ctx, s.round(cfg.Start)); err != nil {
		return interrupted(err)
	}
	// the start was already past the knee: shrink the load by the same factor until a step is good
	for s.good == nil && s.bad != nil && s.steps() < cfg.MaxSteps {
		next := s.round(s.bad.load / cfg.Factor)
		if next >= s.bad.load {
			break
		}
		res, why, _, err := s.step(ctx, PhaseShrink, next)
		if err != nil {
			return interrupted(err)
		}
		if why == "" {
			s.good = &point{next, res}
		} else {
			s.setBad(s.verdicts[next])
		}
	}
	if s.good == nil {
		return ps, nil, fmt.Errorf("peak search found no step within its bounds: %s", s.badWhy)
	}
	// bisect between the last good step and the first bad one, and accept the knee only when
	// the steps around it hold on a second measurement (a third decides a disagreement); when
	// the majority overturns one, the search goes on from there
	for moves := 0; s.bad != nil; {
		if err := s.bisect(ctx); err != nil {
			return interrupted(err)
		}
		moved, err := s.checkKnee(ctx)
		if err != nil {
			return interrupted(err)
		}
		if !moved {
			break
		}
		if moves++; moves >= MaxKneeMoves {
			ps.Doubt = append(ps.Doubt, fmt.Sprintf("the knee did not settle: re-measurement moved it %d times (%s)", moves, strings.Join(s.moves, "; ")))
			break
		}
		if s.good == nil {
			ps.Doubt = append(ps.Doubt, fmt.Sprintf("the knee did not settle: %s, and no lower load stayed good", strings.Join(s.moves, "; ")))
			return ps, nil, fmt.Errorf("peak search found no step within its bounds: %s", strings.Join(ps.Doubt, "; "))
		}
		if s.bad == nil {
			// the first bad step was good after all, and nothing above it was measured bad:
			// growth goes on from it
			if s.good.load >= cfg.Max {
				ps.StopWhy = fmt.Sprintf("reached the maximum of %s still rising: the knee is beyond it", s.unit(cfg.Max))
				break
			}
			if err := s.grow(ctx, s.next(s.good.load)); err != nil {
				return interrupted(err)
			}
		}
	}
	if s.bad != nil {
		ps.StopWhy = fmt.Sprintf("knee between %s (last good) and %s: %s", s.unit(s.good.load), s.unit(s.bad.load), s.badWhy)
		if len(s.moves) > 0 {
			ps.StopWhy += "; re-measurement moved the knee (" + strings.Join(s.moves, "; ") + ")"
		}
	}
	// the peak: the least load within the bounds, and not past the last good step (the stated
	// bracket), whose throughput is on the plateau
	peak, top := math.Inf(1), 0.0
	for _, p := range s.within {
		if p.load <= s.good.load && s.verdicts[p.load].within() {
			top = max(top, s.measured[p.load].Total.TPS)
		}
	}
	for _, p := range s.within {
		if p.load <= s.good.load && s.verdicts[p.load].within() && s.measured[p.load].Total.TPS >= (1-cfg.Plateau)*top {
			peak = min(peak, p.load)
		}
	}
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
	ps.StopWhy += fmt.Sprintf(": the best good step measured was step %d, %.1f tps at %s (not a capacity: the search did not reach its knee)", best.Step, best.TPS, s.unit(best.Rate+float64(best.Users)))
}

// within reports whether the verdict's measurement stayed within the error and latency bounds
// (good, or past the knee only because its throughput did not rise).
func (j judged) within() bool { return j.why == "" || j.flat }

// next is the growth step after load: at least one unit more (rounding must not eat a small
// factor: 1 user × 1.2 rounds back to 1, and the search would mark time until MaxSteps), at most
// the maximum.
func (s *searcher) next(load float64) float64 {
	return math.Min(math.Max(s.round(load*s.cfg.Factor), load+s.unit1()), s.cfg.Max)
}

// grow runs steps from load, growing geometrically, until one is bad (s.bad), the maximum is
// reached or the steps run out (ps.StopWhy says which).
func (s *searcher) grow(ctx context.Context, load float64) error {
	for {
		res, why, _, err := s.step(ctx, PhaseGrow, load)
		if err != nil {
			return err
		}
		if why != "" {
			s.setBad(s.verdicts[load])
			return nil
		}
		s.good = &point{load, res}
		if load >= s.cfg.Max {
			s.ps.StopWhy = fmt.Sprintf("reached the maximum of %s still rising: the knee is beyond it", s.unit(s.cfg.Max))
			return nil
		}
		if s.steps() >= s.cfg.MaxSteps {
			s.ps.StopWhy = fmt.Sprintf("%d steps without reaching the knee", s.steps())
			return nil
		}
		load = s.next(load)
	}
}

// bisect narrows the knee between the last good step and the first bad one to the resolution.
func (s *searcher) bisect(ctx context.Context) error {
	for s.bad != nil && s.steps() < s.cfg.MaxSteps && s.bad.load-s.good.load > s.cfg.Resolution*s.good.load {
		mid := s.round((s.good.load + s.bad.load) / 2)
		if mid <= s.good.load || mid >= s.bad.load {
			break
		}
		res, why, _, err := s.step(ctx, PhaseBisect, mid)
		if err != nil {
			return err
		}
		if why != "" {
			s.setBad(s.verdicts[mid])
		} else {
			s.good = &point{mid, res}
		}
	}
	return nil
}

// checkKnee measures the last good step and the first bad one a second time (each once: a load
// already checked is settled). A second measurement that agrees with the first — judged the
// same, or within the noise of it — confirms it; one that disagrees is a tie a third
// measurement breaks, and the majority's verdict is the load's. moved: the majority overturned
// a first measurement, and the bracket has moved (s.good, s.bad; s.bad nil when nothing above
// the new last good step was measured bad, s.good nil when nothing below the new first bad one
// stayed good).
func (s *searcher) checkKnee(ctx context.Context) (moved bool, err error) {
	for _, wasGood := range []bool{true, false} {
		p := s.bad
		if wasGood {
			p = s.good
		}
		if s.settled[p.load] {
			continue
		}
		s.settled[p.load] = true
		first := s.verdicts[p.load]
		votes := []judged{first}
		for len(votes) < 3 {
			res, err := s.measure(ctx, PhaseRemeasure, p.load)
			if res == nil || err != nil {
				return false, cmp.Or(err, errors.New("step produced no results"))
			}
			s.extra++
			why, knee, flat, kind := s.verdict(p.load, res)
			st := &s.ps.Steps[len(s.ps.Steps)-1]
			st.Good = why == ""
			v := judged{point{p.load, res}, why, kind, knee, flat}
			votes = append(votes, v)
			if len(votes) == 2 {
				if (why == "") == wasGood || !differ(first.res, res) {
					st.Note = fmt.Sprintf("agrees with its first measurement (%.1f tps)", first.res.Total.TPS)
					if (why == "") != wasGood {
						// judged otherwise alone, but within the noise of the first: the load's
						// verdict is the first's, and the step is shown as it
						st.Good = wasGood
						st.Note = fmt.Sprintf("agrees with its first measurement (%.1f tps, %s) within the noise: judged as it", first.res.Total.TPS, goodOrBad(wasGood))
					}
					if v.within() {
						s.measured[p.load] = res // the search's throughput at this load is its last measurement
					}
					break
				}
				st.Note = fmt.Sprintf("disagrees with its first measurement (%.1f tps, %s): %.1f tps, %s — a third measurement decides",
					first.res.Total.TPS, goodOrBad(wasGood), res.Total.TPS, goodOrBad(why == ""))
				continue
			}
			// the third measurement: the majority of the three is the load's verdict
			goods := 0
			for _, v := range votes {
				if v.why == "" {
					goods++
				}
			}
			majority := goods >= 2
			var tally []string
			for _, v := range votes {
				tally = append(tally, fmt.Sprintf("%.1f tps %s", v.res.Total.TPS, goodOrBad(v.why == "")))
			}
			// the majority's latest measurement stands for the load
			var kept judged
			for _, v := range votes {
				if (v.why == "") == majority {
					kept = v
				}
			}
			if majority == wasGood {
				st.Note = fmt.Sprintf("third measurement: 2 of 3 %s (%s): the first stands", goodOrBad(majority), strings.Join(tally, ", "))
				if kept.within() {
					s.measured[p.load] = kept.res
				}
				s.verdicts[p.load] = kept
				break
			}
			st.Note = fmt.Sprintf("third measurement: 2 of 3 %s (%s): the search goes on from there", goodOrBad(majority), strings.Join(tally, ", "))
			s.moves = append(s.moves, fmt.Sprintf("%s measured %s", s.unit(p.load), strings.Join(tally, ", ")))
			s.overturn(kept, wasGood)
			return true, nil
		}
	}
	return false, nil
}

// overturn makes the majority's verdict j the load's after it overturned the first
// measurement: a last good step past the knee becomes the first bad one (the last good is the
// highest good load below it); a first bad step that is good becomes the last good one (the
// first bad is the lowest bad load above it, if any).
func (s *searcher) overturn(j judged, wasGood bool) {
	s.within = slices.DeleteFunc(s.within, func(p point) bool { return p.load == j.load })
	s.keep(j)
	if wasGood {
		s.setBad(j)
		s.good = nil
		for l, v := range s.verdicts {
			if v.why == "" && l < j.load && (s.good == nil || l > s.good.load) {
				s.good = &point{l, s.measured[l]}
			}
		}
		return
	}
	s.good = &point{j.load, j.res}
	s.bad = nil
	for l, v := range s.verdicts {
		if v.why != "" && l > j.load && (s.bad == nil || l < s.bad.load) {
			s.setBad(v)
		}
	}
}

func goodOrBad(good bool) string {
	if good {
		return "good"
	}
	return "past the knee"
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
	search := s.measured[peak]
	if search == nil {
		return
	}
	tol := math.Hypot(half, 2*noise(search))
	if d := best.Total.TPS - search.Total.TPS; math.Abs(d) > tol {
		ps.Doubt = append(ps.Doubt, fmt.Sprintf("the confirm run disagrees with the search: %.1f ± %.1f tps at %s against %.1f tps in the search (a difference of %.1f, beyond the noise of ±%.1f)",
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
			return LimitOther, fmt.Sprintf("other processes took %.0f%% of the machine during step %d (%s), above %.0f%%", 100*st.OtherShare, st.Step, s.unit(st.Rate+float64(st.Users)), 100*cfg.MaxOtherShare)
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
		why = fmt.Sprintf("throughput stopped rising with the server at %.2f of %g cores: a lock, the database, the network or another limit outside the CPU", cpu, cores)
	}
	return LimitUnknown, why
}
