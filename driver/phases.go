package driver

import (
	"math"
	"time"

	"github.com/tradebench/tradebench/driver/load"
	"github.com/tradebench/tradebench/driver/scenario"
	"github.com/tradebench/tradebench/internal/setting"
)

// Phases is the load shape every job runs under, in one vocabulary: how much load (the closed
// model's Users, or the open model's Rate), for how long (an unmeasured ramp-up, the measured
// steady state, an unmeasured ramp-down) and the users' pause between transactions. A job's
// Config embeds it (driver.Config, wstestjob, xmlmarkjob, cacheperfjob; the smart client runs
// under the drive's), the command line registers its flags once for every load command, and
// Drive hands it to the load engine: a phase setting added here reaches every job with nothing
// to copy.
//
// It has no defaults to fill: 0 users or a 0 s window is a mistake Validate names, a zero ramp
// is a run without one, and a workload's own think time is what ThinkOr gives when Think is nil.
//
// The fields' JSON names are the wire names of a distributed run's share (package fleet).
type Phases struct {
	// Users is the closed model's virtual users (at least 1; unused in the open model).
	Users int `json:"users,omitempty"`
	// Rate > 0 selects the open model: iterations started per second.
	Rate float64 `json:"rate,omitempty"`
	// RampUp is the unmeasured time over which the users start (the open model's rate rises).
	RampUp time.Duration `json:"ramp_up"`
	// Duration is the measured steady state (positive; a capacity search's steps have their own).
	Duration time.Duration `json:"duration"`
	// RampDown is the unmeasured time over which the users stop.
	RampDown time.Duration `json:"ramp_down"`
	// Think, if set, replaces the workload's own think time after each transaction (nil: the
	// workload's — a scenario's, WSTest's methodology's, none for XML Mark and CachePerf).
	Think *scenario.Think `json:"think,omitempty"`
	// StartAt, if set, is the wall-clock instant the ramp-up begins (LoadRunner's scheduled
	// start): drivers on several machines without a fleet, or a drive and a monitoring window,
	// start together. Zero starts at once. (A distributed run's agents start at their
	// controller's instant, so it does not travel.)
	StartAt time.Time `json:"-"`
	// Stages, if set, is a closed-model load profile over the whole run (load.ParseStages):
	// the users follow it instead of a ramp-up, a steady state and a ramp-down, and the whole
	// profile is measured. Set it with Staged, which makes Users its peak and Duration its
	// length. (A distributed run does not split a profile among agents yet.)
	Stages []load.Stage `json:"-"`
}

// Staged is p running the profile st: Users its peak, Duration its length, no ramps.
func (p Phases) Staged(st []load.Stage) Phases {
	p.Stages = st
	p.Users, p.Duration, p.RampUp, p.RampDown = load.StagesPeak(st), load.StagesDuration(st), 0, 0
	return p
}

// Validate reports a load shape that cannot run, as a *setting.Error naming the field.
// oneRun is false for a capacity search, whose steps choose their own users and measured window.
func (p Phases) Validate(oneRun bool) error {
	if len(p.Stages) > 0 {
		if err := load.ValidateStages(p.Stages); err != nil {
			return setting.Errorf("Stages", "%v", err)
		}
		if p.Rate != 0 || p.RampUp != 0 || p.RampDown != 0 || p.Users != load.StagesPeak(p.Stages) || p.Duration != load.StagesDuration(p.Stages) {
			return setting.Errorf("Stages", "a profile in stages is the whole run of the closed model: no Rate, RampUp or RampDown, Users its peak and Duration its length (Phases.Staged)")
		}
	}
	switch {
	case math.IsNaN(p.Rate) || math.IsInf(p.Rate, 0) || p.Rate < 0:
		return setting.Errorf("Rate", "must be a positive number of iterations per second, got %v", p.Rate)
	case p.Rate == 0 && p.Users < 1 && (oneRun || p.Users < 0):
		return setting.Errorf("Users", "must be at least 1, got %d", p.Users)
	case p.Duration <= 0 && oneRun:
		return setting.Errorf("Duration", "must be positive, got %v", p.Duration)
	case !p.StartAt.IsZero() && time.Until(p.StartAt) > MaxStartDelay:
		return setting.Errorf("StartAt", "%s is more than %v ahead", p.StartAt.Format(time.RFC3339), MaxStartDelay)
	case !p.StartAt.IsZero() && time.Since(p.StartAt) > time.Minute:
		return setting.Errorf("StartAt", "%s has passed", p.StartAt.Format(time.RFC3339))
	}
	if err := setting.First(setting.NotNegative("Duration", p.Duration), setting.NotNegative("RampUp", p.RampUp), setting.NotNegative("RampDown", p.RampDown)); err != nil {
		return err
	}
	if t := p.Think; t != nil && (t.A < 0 || t.B < 0 || t.Kind == scenario.ThinkUniform && t.B < t.A || t.Kind > scenario.ThinkAround) {
		return setting.Errorf("Think", "%v is not a think time (use 1s, fixed:1s, 0.5s..1.5s, exp:1s or 0)", *t)
	}
	return nil
}

// ThinkOr is the think time a workload whose own is def uses: Think when set, else def.
func (p Phases) ThinkOr(def scenario.Think) scenario.Think {
	if p.Think != nil {
		return *p.Think
	}
	return def
}

// Load is the load engine's configuration of these phases: the one mapping from the load shape
// to the engine.
func (p Phases) Load() load.Config {
	return load.Config{Users: p.Users, Rate: p.Rate, RampUp: p.RampUp, Steady: p.Duration, RampDown: p.RampDown, StartAt: p.StartAt, Stages: p.Stages}
}

// MaxStartDelay bounds how far ahead Phases.StartAt may be: further is a mistyped date.
const MaxStartDelay = 24 * time.Hour
