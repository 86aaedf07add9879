package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tradebench/tradebench/report/stats"
)

// DefaultRunSpread is the run-to-run spread of a capacity a single search assumes, for one
// search cannot measure it: the standard deviation of the capacity between invocations of the
// same build on one quiet machine, as a fraction of the capacity. Between invocations is where
// most of a benchmark's variance lies (Kalibera & Jones 2013) — the knee lands on another step,
// the machine is in another state — and one run sees only its own noise. 0.08 is the reference
// 2-core machine's: its five quiet default runs in docs/benchmarks.md ("How sure is a
// capacity"), 2,596–3,150 TPS, spread by 8.0 % of their mean. A machine whose spread was
// measured (scripts/calibrate, or run --repeat) gives its own (peak.Config.RunSpread).
const DefaultRunSpread = 0.08

// Where a capacity interval's run-to-run spread came from (CapacityInterval.SpreadFrom).
const (
	// SpreadAssumed: DefaultRunSpread, not measured on this machine.
	SpreadAssumed = "assumed"
	// SpreadGiven: the machine's spread, measured before and given to the search.
	SpreadGiven = "given"
	// SpreadRemeasured: the search's own re-measurements at one load spread more than the
	// spread assumed or given, and they were used.
	SpreadRemeasured = "re-measured"
)

// secondRunZ is the normal deviate of the capacity interval: 1.96, for a 95 % interval, so that
// it holds a second run at least 9 times in 10 even where the spread is misjudged a little.
const secondRunZ = 1.96

// CapacityInterval is where a second search of the same build on the same machine lands: its
// capacity lies within [Lo, Hi] 95 % of the time. A capacity is not one measurement at one
// load: a second search differs by the confirming run's noise, by where its knee lands between
// the steps around it, and by the state of the machine from one invocation to the next; the
// interval combines the three (SecondRunHalf).
type CapacityInterval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
	// SD is one run's standard deviation about the capacity (the interval is ± 1.96·√2·SD: the
	// difference of two runs): what comparisons test a difference against.
	SD float64 `json:"sd"`
	// KneeLoTPS and KneeHiTPS are the least and most throughput measured at the steps around
	// the knee — the last good load, the first bad one (when not bad by its errors) and the
	// peak's, re-measurements and the confirming run included: the search's own resolution.
	KneeLoTPS float64 `json:"knee_lo_tps"`
	KneeHiTPS float64 `json:"knee_hi_tps"`
	// RemeasuredSD is the standard deviation of the throughputs measured more than once at
	// one load (pooled over the loads; 0 when nothing was): the spread one run can see.
	RemeasuredSD float64 `json:"remeasured_sd,omitempty"`
	// Spread is the run-to-run spread used, a fraction of the capacity (a standard
	// deviation); SpreadFrom says where it came from (SpreadAssumed, SpreadGiven,
	// SpreadRemeasured).
	Spread     float64 `json:"spread"`
	SpreadFrom string  `json:"spread_from"`
}

// NewCapacityInterval states the interval about a capacity x from its parts: the confirming
// run's 95 % half-width, the least and most throughput measured around the knee, the pooled
// spread of the search's re-measurements at one load (0: none), and the run-to-run spread
// (a fraction of x: given, or 0 to assume DefaultRunSpread). The larger of the re-measurements'
// spread and the run-to-run spread is used: both measure how far one measurement of this
// system strays from another.
func NewCapacityInterval(x, confirmHalf, kneeLo, kneeHi, remeasuredSD, spread float64) *CapacityInterval {
	iv := &CapacityInterval{KneeLoTPS: round1(kneeLo), KneeHiTPS: round1(kneeHi), RemeasuredSD: round1(remeasuredSD), Spread: spread,
		SpreadFrom: SpreadGiven}
	if spread == 0 {
		iv.Spread, iv.SpreadFrom = DefaultRunSpread, SpreadAssumed
	}
	run := iv.Spread * x
	if x > 0 && remeasuredSD > run {
		run, iv.Spread, iv.SpreadFrom = remeasuredSD, remeasuredSD/x, SpreadRemeasured
	}
	sd := SecondRunSD(confirmHalf, kneeHi-kneeLo, run)
	h := SecondRunHalf(sd)
	iv.SD, iv.Lo, iv.Hi = round1(sd), round1(math.Max(0, x-h)), round1(x+h)
	return iv
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// Half is the interval's half-width.
func (c *CapacityInterval) Half() float64 { return (c.Hi - c.Lo) / 2 }

// SecondRunSD is one run's standard deviation about its capacity, from three independent
// parts: the confirming run's noise (confirmHalf, a 95 % half-width); where the knee lands
// between the throughputs measured around it (kneeWidth: another search's bisection may end on
// either side of the knee, so its capacity may be either end of the bracket — at most kneeWidth/2
// from their middle, the standard deviation of a two-point spread); and the run-to-run spread
// (sd, a standard deviation).
func SecondRunSD(confirmHalf, kneeWidth, sd float64) float64 {
	c, k := confirmHalf/secondRunZ, kneeWidth/2
	return math.Sqrt(c*c + k*k + sd*sd)
}

// SecondRunHalf is the half-width of the interval a second run lands in about the first, for
// runs of standard deviation sd: the difference of two runs has twice one run's variance.
func SecondRunHalf(sd float64) float64 { return secondRunZ * math.Sqrt2 * sd }

// Capacity is the capacity as printed: "2876 ± 641", the ± the interval a second run lands in;
// results written before the interval was stated show their confirming run's ± as such
// ("2876 (confirm ± 47)"), never as a bare ±, and "2876.0" without either.
func (p *PeakSearch) Capacity() string {
	switch {
	case p.Interval != nil:
		return fmt.Sprintf("%.0f ± %.0f", p.PeakTPS, math.Ceil(p.Interval.Half()))
	case p.PeakTPSHalf > 0:
		return fmt.Sprintf("%.0f (confirm ± %.0f)", p.PeakTPS, math.Ceil(p.PeakTPSHalf))
	}
	return fmt.Sprintf("%.1f", p.PeakTPS)
}

// IntervalLine says what the capacity's ± is made of and which part one run cannot know
// ("" without an interval).
func (p *PeakSearch) IntervalLine() string {
	iv := p.Interval
	if iv == nil {
		return ""
	}
	var parts []string
	if p.PeakTPSHalf > 0 {
		parts = append(parts, fmt.Sprintf("the confirming run ± %.0f", math.Ceil(p.PeakTPSHalf)))
	}
	if iv.KneeHiTPS > iv.KneeLoTPS {
		parts = append(parts, fmt.Sprintf("the knee between %.0f and %.0f tps", iv.KneeLoTPS, iv.KneeHiTPS))
	}
	if iv.RemeasuredSD > 0 {
		parts = append(parts, fmt.Sprintf("re-measurements at one load spread by %.0f tps", iv.RemeasuredSD))
	}
	spread := fmt.Sprintf("a run-to-run spread of %.1f %%", 100*iv.Spread)
	switch iv.SpreadFrom {
	case SpreadAssumed:
		spread += " assumed (the reference machine's; one run cannot measure it: repeat the run, --repeat 3, or measure the machine with " +
			"scripts/calibrate)"
	case SpreadGiven:
		spread += " given (measured on this machine before)"
	case SpreadRemeasured:
		spread += " (this search's own re-measurements)"
	}
	parts = append(parts, spread)
	h := math.Ceil(iv.Half())
	return fmt.Sprintf("± %.0f is where a second run of this build on this machine lands, 95 %% (%.0f–%.0f tps): %s",
		h, math.Max(0, p.PeakTPS-h), p.PeakTPS+h, strings.Join(parts, ", "))
}

// SD is one run's standard deviation about its capacity, for comparisons: the interval's, or
// for results written before intervals were stated, the confirming run's noise and
// DefaultRunSpread (the knee's resolution unknown).
func (p *PeakSearch) SD() float64 {
	if p.Interval != nil {
		return p.Interval.SD
	}
	return SecondRunSD(p.PeakTPSHalf, 0, DefaultRunSpread*p.PeakTPS)
}

// CapacityEstimate is a run's capacity as comparisons and headlines use it: one search's, or
// the median of a repeated run's searches with their measured spread.
type CapacityEstimate struct {
	// TPS is the capacity: one search's, or the median of the searches.
	TPS float64
	// Searches are the capacities of a repeated run's searches (nil for one search).
	Searches []float64
	// SD is one search's standard deviation: the interval's for one search, the searches'
	// measured spread for a repeated run.
	SD float64
	// NextHalf is the half-width of the interval the next search lands in (95 %) about TPS:
	// the interval's for one search; for a repeated run the searches' prediction interval
	// (Student's t with N−1 degrees of freedom: wide for few searches).
	NextHalf float64
}

// CapacityOf is the run's capacity estimate; false when the run made no capacity search.
func CapacityOf(r *Results) (CapacityEstimate, bool) {
	if caps := r.Capacities(); caps != nil {
		half, sd, _ := stats.PredictionHalf(caps)
		return CapacityEstimate{TPS: stats.Summarize(caps).Median, Searches: caps, SD: sd, NextHalf: half}, true
	}
	p := r.Peak
	if p == nil || p.PeakTPS <= 0 {
		return CapacityEstimate{}, false
	}
	sd := p.SD()
	return CapacityEstimate{TPS: p.PeakTPS, SD: sd, NextHalf: SecondRunHalf(sd)}, true
}

// Interval is "2876 ± 641": the capacity and where the next search lands.
func (c CapacityEstimate) Interval() string {
	return fmt.Sprintf("%.0f ± %.0f", c.TPS, math.Ceil(c.NextHalf))
}

// CompareCapacity tests whether the capacity of other differs from base's: between repeated
// runs by Welch's t over their searches' capacities (the spread measured); else against the
// spread each run's interval states (a repeated run's median with its searches' spread over
// √N). False when either made no capacity search.
func CompareCapacity(base, other *Results) (stats.Comparison, bool) {
	a, okA := CapacityOf(base)
	b, okB := CapacityOf(other)
	if !okA || !okB {
		return stats.Comparison{}, false
	}
	if len(a.Searches) > 1 && len(b.Searches) > 1 {
		return stats.CompareWelch(a.Searches, b.Searches), true
	}
	sd := func(c CapacityEstimate) (float64, int) {
		if n := len(c.Searches); n > 1 {
			return c.SD / math.Sqrt(float64(n)), n
		}
		return c.SD, 1
	}
	sa, na := sd(a)
	sb, nb := sd(b)
	return stats.CompareNormal(a.TPS, b.TPS, sa, sb, na, nb), true
}

// NextLine says what a repeated run's ± is ("" for one search).
func (c CapacityEstimate) NextLine() string {
	n := len(c.Searches)
	if n < 2 {
		return ""
	}
	return fmt.Sprintf("± %.0f is where a next search lands, 95 %%, from the spread measured between these %d searches (%.1f %%; "+
		"Student's t with %d degrees of freedom: more searches narrow it)",
		math.Ceil(c.NextHalf), n, 100*c.SD/c.TPS, n-1)
}

// CapacityChange is the capacity row of a comparison, other against base: "+8.9 % ~ (p=0.612
// n=1)" when not significant, "−37.1 % (p=0.001 n=1)" when it is; false when either made no
// capacity search.
func CapacityChange(base, other *Results) (string, stats.Comparison, bool) {
	c, ok := CompareCapacity(base, other)
	if !ok {
		return "", c, false
	}
	a, _ := CapacityOf(base)
	b, _ := CapacityOf(other)
	d := "±0 %"
	if a.TPS > 0 {
		d = fmt.Sprintf("%+.1f %%", 100*(b.TPS-a.TPS)/a.TPS)
	}
	if !c.Significant() {
		return d + " " + c.Noise(), c, true
	}
	return d + " (" + c.PString() + ")", c, true
}

// Label is the capacity as a comparison shows it: "2876 ± 654", with "(median of 3 searches)"
// for a repeated run.
func (c CapacityEstimate) Label() string {
	if n := len(c.Searches); n > 1 {
		return fmt.Sprintf("%s (median of %d searches)", c.Interval(), n)
	}
	return c.Interval()
}

// JudgedLoad is one load of a capacity search with its verdict as the search judged it: a
// load measured more than once takes its first measurement's verdict when the second agreed,
// the majority's when a third decided (PeakSearch.Judged).
type JudgedLoad struct {
	Load float64
	Good bool
	// Standing is the measurement that stands for the load: the latest with the load's verdict.
	Standing PeakStep
	// Measurements is how many measurements were judged (superseded ones not counted).
	Measurements int
}

// Judged is every load the search measured, in order of load, with its judged verdict: what
// the search's "knee between A (last good) and B" is read from, so that a chart of the search
// agrees with its text (a re-measurement's own vote is not the load's verdict).
func (p *PeakSearch) Judged() []JudgedLoad {
	by := map[float64][]PeakStep{}
	var loads []float64
	for _, st := range p.Steps {
		if st.Superseded || st.Phase == "confirm" {
			continue
		}
		l := st.Rate + float64(st.Users)
		if _, ok := by[l]; !ok {
			loads = append(loads, l)
		}
		by[l] = append(by[l], st)
	}
	slices.Sort(loads)
	out := make([]JudgedLoad, 0, len(loads))
	for _, l := range loads {
		ms := by[l]
		good := ms[0].Good // one measurement, or a second that agreed with it
		if len(ms) >= 3 {
			n := 0
			for _, m := range ms {
				if m.Good {
					n++
				}
			}
			good = 2*n > len(ms)
		}
		j := JudgedLoad{Load: l, Good: good, Standing: ms[len(ms)-1], Measurements: len(ms)}
		for _, m := range ms {
			if m.Good == good {
				j.Standing = m
			}
		}
		out = append(out, j)
	}
	return out
}

// KneeBracket is the last good load and the first bad one above it, as judged (false when the
// search found no bad load above a good one).
func (p *PeakSearch) KneeBracket() (lastGood, firstBad float64, ok bool) {
	lastGood, firstBad = -1, -1
	js := p.Judged()
	for _, j := range js {
		if j.Good {
			lastGood = max(lastGood, j.Load)
		}
	}
	for _, j := range js {
		if !j.Good && j.Load > lastGood && (firstBad < 0 || j.Load < firstBad) {
			firstBad = j.Load
		}
	}
	return lastGood, firstBad, lastGood >= 0 && firstBad > 0
}
