package peak

import (
	"context"
	"math"
	"testing"

	"github.com/tradebench/tradebench/report"
)

// series is a recorded search as data: the throughput each measurement at a load gave, in
// order (the last repeated for any further measurement), and rest for the loads not listed.
func series(at map[float64][]float64, rest func(float64) float64) *recorded {
	return &recorded{tps: func(l float64, n int) float64 {
		if xs, ok := at[l]; ok {
			return xs[min(n, len(xs)-1)]
		}
		return rest(l)
	}}
}

// soft is a system whose knee is soft: linear to 900 users, then half a transaction less per
// user than below, flat from 1,200 users.
func soft(l float64) float64 {
	switch {
	case l <= 900:
		return l
	case l < 1200:
		return 900 + 0.6*(l-900)
	}
	return 1070
}

// Two searches of the same soft knee whose bisections end on different steps: in the first,
// 1,200 users measured 1,075 tps (past the knee: 90 % of the best rate is 1,080), so the knee is
// between 1,100 and 1,200 users and the capacity 1,020 tps at 1,100; in the second the same
// load measured 1,085 (good), the knee is between 1,200 and 1,300 and the capacity 1,085 at
// 1,200. Each run's interval contains the other's capacity: a second run of the same build
// lands inside it.
// Mutant (scripts/mutants.d/peak-interval-confirm-only): the interval the confirming run's
// noise alone — 1,020 ± 12 and 1,085 ± 12, neither holding the other.
func TestIntervalsHoldAKneeOnAnotherStep(t *testing.T) {
	a := series(map[float64][]float64{1200: {1075}}, soft)
	b := series(map[float64][]float64{1200: {1085}, 1300: {1080}, 1400: {1075}}, soft)
	pa, _, err := Search(context.Background(), Config{}, a.run)
	if err != nil {
		t.Fatal(err)
	}
	pb, _, err := Search(context.Background(), Config{}, b.run)
	if err != nil {
		t.Fatal(err)
	}
	if pa.PeakUsers != 1100 || pb.PeakUsers != 1200 {
		t.Fatalf("peaks at %d and %d users, want the knees on different steps (1100, 1200): %s / %s", pa.PeakUsers, pb.PeakUsers, pa.StopWhy, pb.StopWhy)
	}
	for _, c := range []struct {
		name  string
		iv    *report.CapacityInterval
		other float64
	}{{"first", pa.Interval, pb.PeakTPS}, {"second", pb.Interval, pa.PeakTPS}} {
		if c.iv == nil || c.other < c.iv.Lo || c.other > c.iv.Hi {
			t.Errorf("the %s run's interval %+v does not hold the other run's capacity %.1f", c.name, c.iv, c.other)
		}
	}
	if pa.Interval.SpreadFrom != report.SpreadAssumed || pa.Interval.Spread != report.DefaultRunSpread {
		t.Errorf("one search's run-to-run spread: %g %s, want the default, assumed", pa.Interval.Spread, pa.Interval.SpreadFrom)
	}
}

// A sharp knee gives a narrow interval, a soft one a wider: on a machine whose run-to-run
// spread is known to be 2 %, a system flat at 1,000 tps past its knee measures the same
// throughput at the steps around it (a zero-width knee), and its capacity's ± is little more
// than the spread; the soft knee's steps around it measured 1,020 and 1,075 tps, and its ± holds
// that resolution too.
// Mutant (scripts/mutants.d/peak-interval-knee-ignored): the knee's resolution left out — the
// soft knee's interval as narrow as the sharp one's.
func TestSharpKneeNarrowInterval(t *testing.T) {
	cfg := Config{RunSpread: 0.02}
	sharp, _, err := Search(context.Background(), cfg, (&recorded{tps: linear(1000)}).run)
	if err != nil {
		t.Fatal(err)
	}
	blunt, _, err := Search(context.Background(), cfg, series(map[float64][]float64{1200: {1075}}, soft).run)
	if err != nil {
		t.Fatal(err)
	}
	s, b := sharp.Interval, blunt.Interval
	if s.KneeHiTPS != s.KneeLoTPS || s.SpreadFrom != report.SpreadGiven {
		t.Errorf("sharp knee: %+v, want a zero-width knee and the spread given", s)
	}
	if rel := s.Half() / sharp.PeakTPS; rel > 0.065 {
		t.Errorf("sharp knee: %s, ± %.1f %% of the capacity, want at most 6.5 %%", sharp.Capacity(), 100*rel)
	}
	if b.KneeHiTPS-b.KneeLoTPS < 50 || b.Half()/blunt.PeakTPS < 1.4*s.Half()/sharp.PeakTPS {
		t.Errorf("soft knee: %s (knee %.1f–%.1f) not wider than the sharp knee's %s", blunt.Capacity(), b.KneeLoTPS, b.KneeHiTPS, sharp.Capacity())
	}
}

// A search whose own re-measurements at one load spread more than the run-to-run spread given
// uses their spread: the first bad step (1,200 users) measured 1,000 tps, then 1,150 (good) and
// 1,010 (the knee stands, 2 of 3 past it) — about 60 tps pooled with the loads measured twice
// alike, more than the 2 % (20 tps) given.
// Mutant (scripts/mutants.d/peak-interval-remeasure-ignored): the re-measurements' spread not
// used — the 2 % given kept.
func TestIntervalUsesTheRemeasuredSpread(t *testing.T) {
	f := series(map[float64][]float64{1200: {1000, 1150, 1010}}, func(l float64) float64 { return math.Min(l, 1000) })
	ps, _, err := Search(context.Background(), Config{RunSpread: 0.02}, f.run)
	if err != nil {
		t.Fatal(err)
	}
	iv := ps.Interval
	if iv.SpreadFrom != report.SpreadRemeasured || iv.RemeasuredSD < 50 || math.Abs(iv.Spread*ps.PeakTPS-iv.RemeasuredSD) > 0.5 ||
		iv.Half() < report.SecondRunHalf(iv.RemeasuredSD) {
		t.Errorf("interval %+v of %s: want the re-measurements' spread (%s)", iv, ps.Capacity(), phases(ps))
	}
}

// A second measurement judged otherwise on its own but within the noise of the first agrees
// with it, and is shown as the load's verdict: 1,200 users measured 1,070 tps (past the knee)
// and then 1,085 (good alone, 15 tps apart: within the noise), so the step is recorded past the
// knee with a note saying why — not drawn good beside "agrees with … past the knee".
// Mutant (scripts/mutants.d/peak-agreeing-step-own-vote): the agreeing step keeps its own verdict.
func TestAgreeingRemeasureShownAsJudged(t *testing.T) {
	f := series(map[float64][]float64{1200: {1070, 1085}}, func(l float64) float64 { return math.Min(l, 1000) })
	ps, _, err := Search(context.Background(), Config{}, f.run)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range ps.Steps {
		if st.Users == 1200 && st.Phase == PhaseRemeasure {
			if st.Good || st.Note != "agrees with its first measurement (1070.0 tps, past the knee) within the noise: judged as it" {
				t.Errorf("the re-measurement at 1,200 users: good %v, %q", st.Good, st.Note)
			}
			return
		}
	}
	t.Fatalf("1,200 users not measured again: %s", phases(ps))
}

// A search stopped before its knee (Ctrl-C) keeps its steps and names the best good step it
// measured as what it found, said to be no capacity — not "0.0 tps at 0 users".
// Mutant (scripts/mutants.d/peak-interrupted-no-best): the interrupted search's peak left empty.
func TestInterruptedSearchNamesItsBestStep(t *testing.T) {
	f := &recorded{tps: linear(1000)}
	ctx, stop := context.WithCancel(context.Background())
	run := func(c context.Context, s Step) (*report.Results, error) {
		if s.Users >= 1600 {
			stop()
			return nil, c.Err()
		}
		return f.run(c, s)
	}
	ps, best, err := Search(ctx, Config{}, run)
	if err == nil || best != nil {
		t.Fatalf("interrupted: best %v, err %v", best, err)
	}
	if ps.PeakTPS != 800 || ps.PeakUsers != 800 || ps.PeakStep != 4 ||
		ps.StopWhy != "interrupted before the knee was found: the best good step measured was step 4, 800.0 tps at 800 users "+
			"(not a capacity: the search did not reach its knee)" {
		t.Errorf("interrupted search: peak %.1f tps at %d users (step %d): %q", ps.PeakTPS, ps.PeakUsers, ps.PeakStep, ps.StopWhy)
	}
}
