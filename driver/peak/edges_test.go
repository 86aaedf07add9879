package peak

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/report"
)

// The confirming run is the long one: its ramp-up and measured window are the Confirm settings,
// every other step's the short Step settings.
// Mutant peak-confirm-short: the confirming run given the step's ramp-up and duration.
func TestConfirmRunLength(t *testing.T) {
	var steps []Step
	rec := &recorded{tps: linear(500)}
	run := func(ctx context.Context, s Step) (*report.Results, error) {
		steps = append(steps, s)
		return rec.run(ctx, s)
	}
	cfg := Config{StepRampUp: new(time.Second), StepDuration: 2 * time.Second, ConfirmRampUp: 3 * time.Second, ConfirmDuration: 7 * time.Second}
	if _, _, err := Search(context.Background(), cfg, run); err != nil {
		t.Fatal(err)
	}
	last := steps[len(steps)-1]
	if last.Phase != PhaseConfirm || last.RampUp != 3*time.Second || last.Duration != 7*time.Second {
		t.Errorf("confirming run %+v: want ramp-up 3s, duration 7s", last)
	}
	for _, s := range steps[:len(steps)-1] {
		if s.RampUp != time.Second || s.Duration != 2*time.Second {
			t.Errorf("search step %+v: want ramp-up 1s, duration 2s", s)
		}
	}
}

// A per-user throughput that falls slowly — 6 % at each doubling, never 10 % from one step to
// the next — is past the knee once it is 10 % below the best any step showed: at 400 users
// (88 % of the best rate), not never.
// Mutant peak-efficiency-last-good: efficiency compared with the last good step's rate, not
// the best (each step within 94 % of the one before: the search ran to its maximum).
func TestEfficiencyAgainstTheBest(t *testing.T) {
	rec := &recorded{tps: func(l float64, _ int) float64 { return l * math.Pow(0.94, math.Log2(l/100)) }}
	ps, _, err := Search(context.Background(), Config{}, rec.run)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps.Steps) < 3 || ps.Steps[2].Users != 400 || ps.Steps[2].Good {
		t.Fatalf("steps %+v: want 400 users (88%% of the best rate per user) judged past the knee", ps.Steps)
	}
	if !ps.Knee || ps.PeakUsers >= 400 || !strings.Contains(ps.StopWhy, "stopped rising") {
		t.Errorf("knee %v, peak %d users: %s", ps.Knee, ps.PeakUsers, ps.StopWhy)
	}
}

// The search's throughput at a load is its last measurement, including a second measurement
// that is flat (within the bounds but below the efficiency line) and agrees with the first
// within the noise: the confirming run is compared with it. Here 850 users measured 1,010 tps,
// then 950 on the knee check; the confirming run's 880 agrees with 950 within the noise, not
// with 1,010.
// Mutant peak-flat-left-out: flat measurements left out of the search's throughput (the
// confirming run then "disagrees with the search" at 1,010 tps).
func TestFlatRemeasureIsTheSearchsThroughput(t *testing.T) {
	first := map[float64]float64{100: 125, 200: 250, 400: 500, 800: 920, 850: 1010}
	rec := &recorded{
		tps: func(l float64, n int) float64 {
			if l == 850 && n > 0 {
				return 950
			}
			if v, ok := first[l]; ok {
				return v
			}
			return 1010 // flat past 850 users
		},
		confirm: func(float64) float64 { return 880 },
	}
	cfg := Config{StepDuration: time.Second, ConfirmDuration: time.Second}
	ps, _, err := Search(context.Background(), cfg, rec.run)
	if err != nil {
		t.Fatal(err)
	}
	if ps.PeakUsers != 850 {
		t.Fatalf("peak at %d users, want 850 (steps %s)", ps.PeakUsers, phases(ps))
	}
	if len(ps.Doubt) > 0 {
		t.Errorf("doubt %q: the confirming run's 880 tps agrees with the search's last measurement at 850 users (950)", ps.Doubt)
	}
}

// A target that answers nothing (no transaction completes at any load) has no capacity: a
// step where nothing passed is never good, and the search ends with an error, not with a peak
// of 0 tps.
// Mutant peak-nothing-passed-good: a step with no passed transaction and no error judged good.
func TestNothingCompletedIsNeverGood(t *testing.T) {
	rec := &recorded{tps: func(float64, int) float64 { return 0 }}
	ps, best, err := Search(context.Background(), Config{}, rec.run)
	if err == nil || best != nil {
		t.Fatalf("a silent target: peak %+v, error %v; want no peak and an error", ps, err)
	}
	if !strings.Contains(err.Error(), "no step within its bounds") {
		t.Errorf("error %v", err)
	}
	for _, s := range ps.Steps {
		if s.Good {
			t.Errorf("step %+v with nothing completed judged good", s)
		}
	}
}

// A zero step ramp-up is a setting: every step starts its users at once (the confirming run
// keeps its own); unset (nil) takes the default; a negative one is refused, naming the field.
// Mutant (scripts/mutants.d/peak-ramp-up-zero-unset): SetDefaults treating zero as unset.
func TestStepRampUpZero(t *testing.T) {
	for _, c := range []struct {
		set  *time.Duration
		want time.Duration
	}{{new(time.Duration(0)), 0}, {nil, DefaultStepRampUp}} {
		var ramps []time.Duration
		_, _, err := Search(context.Background(), Config{StepRampUp: c.set, Max: 400}, func(ctx context.Context, s Step) (*report.Results, error) {
			if s.Phase != PhaseConfirm {
				ramps = append(ramps, s.RampUp)
			}
			return (&recorded{tps: linear(1e9)}).run(ctx, s)
		})
		if err != nil || len(ramps) == 0 {
			t.Fatal(err)
		}
		for _, r := range ramps {
			if r != c.want {
				t.Fatalf("step ramp-ups %v, want %v", ramps, c.want)
			}
		}
	}
	neg := Config{StepRampUp: new(-time.Second)}
	neg.SetDefaults()
	err := neg.Validate()
	if err == nil || !strings.Contains(err.Error(), "StepRampUp") {
		t.Errorf("a negative step ramp-up: %v", err)
	}
}

// A knee overturned for the third time with no good load left below it is a search that found
// no step within its bounds, not a peak: here every load is good on its first measurement and
// past the knee on every later one, and the step limit stops bisection, so the knee checks walk
// the last good step down (400, 200, then 100 users) until none is left. The search says the
// knee did not settle and returns an error and no results — it must not go on to confirm a
// peak below no good step.
// Mutant (scripts/mutants.d/peak-knee-unsettled-no-good): the move limit checked before the
// missing last good step — the search went on to its peak with none.
func TestKneeOverturnedToNothingGood(t *testing.T) {
	again := func(l float64, n int) bool { return l >= 800 || n > 0 }
	f := &recorded{tps: func(l float64, n int) float64 {
		if again(l, n) {
			return 0.8 * l
		}
		return l
	}, p90n: func(l float64, n int) float64 {
		if again(l, n) {
			return 841
		}
		return 10
	}}
	ps, best, err := Search(context.Background(), Config{MaxSteps: 4, MaxP90: 500 * time.Millisecond}, f.run)
	if err == nil || best != nil || !strings.Contains(err.Error(), "no step within its bounds") {
		t.Fatalf("results %v, error %v; want none and an error", best, err)
	}
	const doubt = "100 users measured 100.0 tps good, 80.0 tps past the knee, 80.0 tps past the knee, and no lower load stayed good"
	if len(ps.Doubt) != 1 || !strings.HasSuffix(ps.Doubt[0], doubt) {
		t.Errorf("doubt %q (steps %s)", ps.Doubt, phases(ps))
	}
}
