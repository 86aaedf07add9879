package peak

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/tradebench/tradebench/report"
)

// state is where a search is. A search is a loop over these states: each state's action
// (searcher.act) runs its steps, and transition alone decides the next state from what the
// steps left — the bracket (the last good step, the first bad one), the steps used and how often
// re-measurement moved the knee. Reading transition is reading the method.
type state int

const (
	// growing: the load grows by Factor, from Start or from above the last good step, until a
	// step is bad, the maximum is reached or the steps run out.
	growing state = iota
	// shrinking: the first step was already past the knee; the load shrinks by Factor until a
	// step is good.
	shrinking
	// bisecting: the knee is bracketed; the load halves the bracket to the resolution.
	bisecting
	// checkingKnee: the two steps around the knee are measured again, and a majority of votes
	// may overturn one and move the knee.
	checkingKnee
	// confirming: the search is over; the peak is chosen on the plateau and measured by one
	// longer run (searcher.conclude).
	confirming
	// failed: no step stayed within the bounds; there is no peak to confirm.
	failed
)

func (st state) String() string {
	return [...]string{"growing", "shrinking", "bisecting", "checking the knee", "confirming", "failed"}[st]
}

// transition is the search's state machine in one place: the state after from, given what
// from's steps left. It also says why the search stops where it does (ps.StopWhy, ps.Doubt,
// s.failWhy), since those reasons are the transitions' own.
//
//	growing      → shrinking     the first step was bad
//	             → confirming    the maximum or the step limit reached with every step good
//	             → bisecting     a bad step above a good one
//	shrinking    → failed        the steps ran out, or the load cannot shrink, with none good
//	             → bisecting
//	bisecting    → checkingKnee  always: the knee is accepted only once its steps hold
//	checkingKnee → confirming    the knee held; or it moved policy.kneeMoves times
//	             → failed        the last good step was overturned with no good load below it
//	             → growing       the first bad step was good after all, nothing above it bad
//	             → confirming    … and it is already at the maximum
//	             → bisecting     the knee moved within the steps measured
func (s *searcher) transition(from state) state {
	switch from {
	case growing:
		switch {
		case s.good == nil:
			return shrinking
		case s.bad == nil:
			return confirming
		}
		return bisecting
	case shrinking:
		if s.good == nil {
			s.failWhy = s.badWhy
			return failed
		}
		return bisecting
	case bisecting:
		return checkingKnee
	case checkingKnee:
		ps := s.ps
		switch {
		case !s.moved:
			return confirming
		case s.good == nil:
			ps.Doubt = append(ps.Doubt, fmt.Sprintf("the knee did not settle: %s, and no lower load stayed good", strings.Join(s.moves, "; ")))
			s.failWhy = strings.Join(ps.Doubt, "; ")
			return failed
		case len(s.moves) >= policy.kneeMoves:
			ps.Doubt = append(ps.Doubt, fmt.Sprintf("the knee did not settle: re-measurement moved it %d times (%s)",
				len(s.moves), strings.Join(s.moves, "; ")))
			return confirming
		case s.bad != nil:
			return bisecting
		case s.good.load >= s.cfg.Max:
			ps.StopWhy = fmt.Sprintf("reached the maximum of %s still rising: the knee is beyond it", s.unit(s.cfg.Max))
			return confirming
		}
		// the first bad step was good after all, and nothing above it was measured bad:
		// growth goes on from it
		return growing
	}
	panic(fmt.Sprintf("peak: no transition from %v", from))
}

// act runs the steps of state st; an error is the run's (the search interrupted).
func (s *searcher) act(ctx context.Context, st state) error {
	switch st {
	case growing:
		from := s.round(s.cfg.Start)
		if s.good != nil {
			from = s.next(s.good.load)
		}
		return s.grow(ctx, from)
	case shrinking:
		return s.shrink(ctx)
	case bisecting:
		return s.bisect(ctx)
	case checkingKnee:
		var err error
		s.moved, err = s.checkKnee(ctx)
		return err
	}
	panic(fmt.Sprintf("peak: no action in state %v", st))
}

// remeasurePolicy is every limit on measuring a step again, in one place: re-measurement buys
// confidence in a noisy or disturbed step, and each limit stops it buying more time than the
// confidence is worth. Re-measurements never count against MaxSteps (the steps' budget is for
// finding the knee, not for doubting it).
type remeasurePolicy struct {
	// lower is how many more times a step is measured when it measured less throughput than a
	// lower load beyond the noise: once — the second measurement is judged, whatever it says.
	lower int
	// disturbed is how many more times a step is measured when other processes took more than
	// MaxOtherShare of the machine during it: a neighbour's burst passes, and one disturbed
	// step should not spoil a capacity; a step disturbed every time is kept, and the
	// other_processes rule makes the capacity inconclusive.
	disturbed int
	// disturbedSearch bounds the disturbed re-measurements of a whole search: on a machine
	// busy throughout, measuring every step three times would triple the search for nothing
	// (the other_processes rule makes its capacity inconclusive anyway), so after this many the
	// search believes what it measures.
	disturbedSearch int
	// kneeVotes is how many measurements may decide a step around the knee: the first, a
	// second that agrees or not, and a third that breaks the tie.
	kneeVotes int
	// kneeMoves is how many times re-measurement may move the knee (a vote overturning a
	// step's first measurement) before the search says the knee does not settle.
	kneeMoves int
}

// policy is the re-measurement policy of every search.
var policy = remeasurePolicy{lower: 1, disturbed: 2, disturbedSearch: 6, kneeVotes: 3, kneeMoves: 3}

// Search grows the load from Start to the knee, bisects, and confirms at the peak. It returns
// the search and the confirming run's results with Peak filled in (nil if no step stayed within
// the bounds: the first step was already bad).
func Search(ctx context.Context, cfg Config, run RunFunc) (*report.PeakSearch, *report.Results, error) {
	cfg.SetDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	began := time.Now()
	s := &searcher{cfg: cfg, run: run, ps: &report.PeakSearch{}, loads: map[float64]*atLoad{}}
	ps := s.ps
	defer func() { ps.Seconds = math.Round(time.Since(began).Seconds()*10) / 10 }()
	st := growing
	for st != confirming && st != failed {
		if err := s.act(ctx, st); err != nil {
			s.interrupted()
			return ps, nil, err
		}
		st = s.transition(st)
	}
	if st == failed {
		return ps, nil, fmt.Errorf("peak search found no step within its bounds: %s", s.failWhy)
	}
	return s.conclude(ctx)
}

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

// within reports whether the verdict's measurement stayed within the error and latency bounds
// (good, or past the knee only because its throughput did not rise).
func (j judged) within() bool { return j.why == "" || j.flat }

// atLoad is what the search holds at one load.
type atLoad struct {
	// verdict is the load's verdict (nil: not judged yet).
	verdict *judged
	// measured is the measurement within the bounds the search holds at the load: the last,
	// or the majority's where the load was voted on (nil: none within the bounds).
	measured *report.Results
	// lowerAgain counts the times the load was measured again for measuring less than a lower
	// load (policy.lower bounds it).
	lowerAgain int
	// settled: the load was checked around the knee (measured twice, or voted on); it is not
	// checked again.
	settled bool
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
	// within are the steps within the error and latency bounds, good or past the knee, in the
	// order measured
	within []point
	// loads are what the search holds at each load it measured
	loads map[float64]*atLoad
	// moved says the last knee check moved the knee; moves say how each move did, for the
	// doubt when it does not settle
	moved bool
	moves []string
	// disturbed counts the measurements made again because other processes disturbed them
	disturbed int
	// failWhy says why the search failed (its state failed)
	failWhy string
}

// at is what the search holds at load, made on first use.
func (s *searcher) at(load float64) *atLoad {
	a := s.loads[load]
	if a == nil {
		a = &atLoad{}
		s.loads[load] = a
	}
	return a
}

// verdictAt is load's verdict (the zero verdict, good, if it was never judged).
func (s *searcher) verdictAt(load float64) judged {
	if a := s.loads[load]; a != nil && a.verdict != nil {
		return *a.verdict
	}
	return judged{}
}

// measuredAt is the measurement the search holds at load within the bounds (nil: none).
func (s *searcher) measuredAt(load float64) *report.Results {
	if a := s.loads[load]; a != nil {
		return a.measured
	}
	return nil
}

// steps is the number of steps run, the re-measurements not counted (MaxSteps bounds it).
func (s *searcher) steps() int { return s.n - s.extra }
