package peak

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The knee check: a bracket found by single short steps can sit on one noisy measurement, so
// the two steps around the knee are measured again before the knee is accepted, and a majority
// of up to policy.kneeVotes measurements decides a step that disagrees with itself.

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
		a := s.at(p.load)
		if a.settled {
			continue
		}
		a.settled = true
		if moved, err := s.vote(ctx, p.load, wasGood); moved || err != nil {
			return moved, err
		}
	}
	return false, nil
}

// vote measures load again until its verdict is decided (see checkKnee); wasGood is its first
// measurement's verdict. moved: the majority overturned it.
func (s *searcher) vote(ctx context.Context, load float64, wasGood bool) (moved bool, err error) {
	first := s.verdictAt(load)
	votes := []judged{first}
	for len(votes) < policy.kneeVotes {
		res, err := s.measure(ctx, PhaseRemeasure, load)
		if res == nil || err != nil {
			return false, cmp.Or(err, errors.New("step produced no results"))
		}
		s.extra++
		why, knee, flat, kind := s.verdict(load, res)
		st := &s.ps.Steps[len(s.ps.Steps)-1]
		st.Good = why == ""
		v := judged{point{load, res}, why, kind, knee, flat}
		votes = append(votes, v)
		if len(votes) == 2 {
			if (why == "") == wasGood || !differ(first.res, res) {
				st.Note = fmt.Sprintf("agrees with its first measurement (%.1f tps)", first.res.Total.TPS)
				if (why == "") != wasGood {
					// judged otherwise alone, but within the noise of the first: the load's
					// verdict is the first's, and the step is shown as it
					st.Good = wasGood
					st.Note = fmt.Sprintf("agrees with its first measurement (%.1f tps, %s) within the noise: judged as it",
						first.res.Total.TPS, goodOrBad(wasGood))
				}
				if v.within() {
					s.at(load).measured = res // the search's throughput at this load is its last measurement
				}
				return false, nil
			}
			st.Note = fmt.Sprintf("disagrees with its first measurement (%.1f tps, %s): %.1f tps, %s — a third measurement decides",
				first.res.Total.TPS, goodOrBad(wasGood), res.Total.TPS, goodOrBad(why == ""))
		}
	}
	return s.decide(load, votes, wasGood), nil
}

// decide makes the majority of the votes load's verdict and says so on the last step;
// moved: it overturned the first measurement (wasGood), and the search goes on from there.
func (s *searcher) decide(load float64, votes []judged, wasGood bool) (moved bool) {
	goods := 0
	for _, v := range votes {
		if v.why == "" {
			goods++
		}
	}
	majority := goods > len(votes)/2
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
	st := &s.ps.Steps[len(s.ps.Steps)-1]
	if majority == wasGood {
		st.Note = fmt.Sprintf("third measurement: 2 of 3 %s (%s): the first stands", goodOrBad(majority), strings.Join(tally, ", "))
		a := s.at(load)
		if kept.within() {
			a.measured = kept.res
		}
		a.verdict = &kept
		return false
	}
	st.Note = fmt.Sprintf("third measurement: 2 of 3 %s (%s): the search goes on from there", goodOrBad(majority), strings.Join(tally, ", "))
	s.moves = append(s.moves, fmt.Sprintf("%s measured %s", s.unit(load), strings.Join(tally, ", ")))
	s.overturn(kept, wasGood)
	return true
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
		for l, a := range s.loads {
			if v := a.verdict; v != nil && v.why == "" && l < j.load && (s.good == nil || l > s.good.load) {
				s.good = &point{l, a.measured}
			}
		}
		return
	}
	s.good = &point{j.load, j.res}
	s.bad = nil
	for l, a := range s.loads {
		if v := a.verdict; v != nil && v.why != "" && l > j.load && (s.bad == nil || l < s.bad.load) {
			s.setBad(*v)
		}
	}
}

func goodOrBad(good bool) string {
	if good {
		return "good"
	}
	return "past the knee"
}
