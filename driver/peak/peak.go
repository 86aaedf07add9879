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
//
// The search is a small state machine — growing, shrinking, bisecting, checking the knee,
// confirming — whose transitions are written in one function (searcher.transition, search.go)
// so that a reader follows the method in one place; each state's steps are in bracket.go and
// knee.go, the measuring and judging of one step in measure.go, and the peak, its interval and
// what limited it in conclude.go. Every limit on measuring a step again (a noisy step, a
// disturbed one, the votes around the knee) is one policy, remeasurePolicy.
package peak

import (
	"context"
	"math"
	"time"

	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/report"
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
	Phase string  // PhaseGrow, PhaseShrink, PhaseBisect, PhaseRemeasure or PhaseConfirm
	Users int     // closed model
	Rate  float64 // open model
	// RampUp and Duration are the run's ramp-up and measured steady state.
	RampUp, Duration time.Duration
	// Of is the step this one measures again (a disturbed step, one that measured less than a
	// lower load, a step around the knee); 0 for a first measurement. Progress says so, or a
	// search re-measuring would look stuck on "grow 3 (400 users)".
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
