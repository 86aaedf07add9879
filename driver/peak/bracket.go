package peak

import (
	"context"
	"fmt"
	"math"
)

// The actions that bracket the knee: growth to the first bad step, shrinking from a start
// already past it, and bisection of the bracket. Each records the bracket in s.good and s.bad;
// transition reads it.

// grow runs steps from load, growing geometrically, until one is bad (s.bad), the maximum is
// reached or the steps run out (ps.StopWhy says which).
func (s *searcher) grow(ctx context.Context, load float64) error {
	for {
		res, why, _, err := s.step(ctx, PhaseGrow, load)
		if err != nil {
			return err
		}
		if why != "" {
			s.setBad(s.verdictAt(load))
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

// shrink runs steps below the first bad one, shrinking the load by the growth factor, until
// one is good (s.good), the load cannot shrink or the steps run out: the start was already past
// the knee.
func (s *searcher) shrink(ctx context.Context) error {
	for s.good == nil && s.bad != nil && s.steps() < s.cfg.MaxSteps {
		next := s.round(s.bad.load / s.cfg.Factor)
		if next >= s.bad.load {
			break
		}
		res, why, _, err := s.step(ctx, PhaseShrink, next)
		if err != nil {
			return err
		}
		if why == "" {
			s.good = &point{next, res}
		} else {
			s.setBad(s.verdictAt(next))
		}
	}
	return nil
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
			s.setBad(s.verdictAt(mid))
		} else {
			s.good = &point{mid, res}
		}
	}
	return nil
}

// next is the growth step after load: at least one unit more (rounding must not eat a small
// factor: 1 user × 1.2 rounds back to 1, and the search would mark time until MaxSteps), at most
// the maximum.
func (s *searcher) next(load float64) float64 {
	return math.Min(math.Max(s.round(load*s.cfg.Factor), load+s.unit1()), s.cfg.Max)
}
