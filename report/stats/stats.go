// Package stats tells a real change from noise: the summaries and significance tests that
// 'report compare' and the repeated-run summary use. Repeated runs are compared as Go's
// benchstat compares benchmarks (golang.org/x/perf/benchmath: the median with a distribution-free
// confidence interval, and a Mann–Whitney U test across runs); single runs are compared from
// their per-second series with batch means, which allows for the series' autocorrelation.
package stats

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	mstats "github.com/aclements/go-moremath/stats"
	"golang.org/x/perf/benchmath"
)

// Alpha is the significance level below which a difference is reported as real: benchstat's.
const Alpha = 0.05

// Confidence is the level of the confidence intervals shown (95 %).
const Confidence = 0.95

// Summary is a metric over repeated runs: the median, its confidence interval (distribution
// free, from order statistics: infinite when there are too few runs for the level asked) and
// the range.
type Summary struct {
	N              int
	Median, Lo, Hi float64
	Min, Max       float64
	// Confidence is the interval's actual level (at least Confidence when finite).
	Confidence float64
}

// Summarize summarizes repeated measurements of one metric.
func Summarize(values []float64) Summary {
	if len(values) == 0 {
		return Summary{Median: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Min: math.NaN(), Max: math.NaN()}
	}
	v := slices.Clone(values)
	s := benchmath.AssumeNothing.Summary(benchmath.NewSample(v, &benchmath.DefaultThresholds), Confidence)
	return Summary{N: len(v), Median: s.Center, Lo: s.Lo, Hi: s.Hi, Min: v[0], Max: v[len(v)-1], Confidence: s.Confidence}
}

// Method names how two measurements were compared.
type Method string

const (
	// UTest: a Mann–Whitney U test over the runs' values (repeated runs), as benchstat.
	UTest Method = "Mann–Whitney U over repeated runs"
	// BatchMeans: a Welch t test over batch means of each run's steady-state per-second series.
	BatchMeans Method = "Welch t over batch means of the per-second series"
)

// Comparison is the outcome of a significance test between a baseline and another measurement.
type Comparison struct {
	Method Method
	P      float64
	N1, N2 int
	Alpha  float64
	// Warning says why a test could not find a difference even if there was one (too few runs
	// or batches), or why it could not be run.
	Warning string
}

// Significant reports whether the difference is unlikely to be noise (P < Alpha).
func (c Comparison) Significant() bool { return c.P < c.Alpha }

// Counts is "n=5" or "n=5+3", as benchstat prints the sample sizes.
func (c Comparison) Counts() string {
	if c.N1 == c.N2 {
		return "n=" + strconv.Itoa(c.N1)
	}
	return fmt.Sprintf("n=%d+%d", c.N1, c.N2)
}

// Noise is how a non-significant difference is shown, as benchstat does: "~ (p=0.400 n=5)".
func (c Comparison) Noise() string {
	if c.N1 == 0 || c.N2 == 0 {
		return "~ (not tested: too few samples)"
	}
	return fmt.Sprintf("~ (p=%.3f %s)", c.P, c.Counts())
}

// PString is the p-value and counts for a significant difference: "p=0.008 n=5".
func (c Comparison) PString() string {
	return fmt.Sprintf("p=%.3f %s", c.P, c.Counts())
}

// CompareRuns compares one metric measured over repeated runs of a baseline (a) and of another
// configuration (b) with benchstat's Mann–Whitney U test.
func CompareRuns(a, b []float64) Comparison {
	th := benchmath.DefaultThresholds
	c := benchmath.AssumeNothing.Compare(benchmath.NewSample(slices.Clone(a), &th), benchmath.NewSample(slices.Clone(b), &th))
	out := Comparison{Method: UTest, P: c.P, N1: c.N1, N2: c.N2, Alpha: c.Alpha}
	if len(c.Warnings) > 0 {
		out.Warning = c.Warnings[0].Error()
	}
	return out
}

// MinBatches and MaxBatches bound the number of batches a per-second series is cut into; a
// batch is at least MinBatchSeconds long, so that one batch's mean hardly depends on the next
// (the per-second values of a run are autocorrelated: a slow second tends to follow one).
const (
	MinBatches      = 5
	MaxBatches      = 8
	MinBatchSeconds = 3
)

// Batches cuts a steady-state series into consecutive batches of equal length (dropping the
// remainder at the start: the end of a steady state is nearer the others) and returns their
// means. It returns nil when the series is too short for MinBatches batches.
func Batches(series []float64) []float64 {
	k := min(MaxBatches, len(series)/MinBatchSeconds)
	if k < MinBatches {
		return nil
	}
	size := len(series) / k
	start := len(series) - k*size
	means := make([]float64, k)
	for i := range k {
		sum := 0.0
		for _, v := range series[start+i*size : start+(i+1)*size] {
			sum += v
		}
		means[i] = sum / float64(size)
	}
	return means
}

// CompareSeries compares single runs from their steady-state per-second series (a metric's value
// in each measured second) with the method of batch means: the series are cut into batches long
// enough that their means are nearly independent and nearly normal, and the batch means are
// compared with Welch's t test. Comparing the raw seconds instead would count autocorrelated
// seconds as independent evidence and call noise a change. Series too short for batches are
// reported as not significant with a warning.
func CompareSeries(a, b []float64) Comparison {
	ba, bb := Batches(a), Batches(b)
	out := Comparison{Method: BatchMeans, P: 1, N1: len(ba), N2: len(bb), Alpha: Alpha}
	if ba == nil || bb == nil {
		out.Warning = fmt.Sprintf("need a steady state of at least %d s per run for %d batches (got %d s and %d s)",
			MinBatches*MinBatchSeconds, MinBatches, len(a), len(b))
		return out
	}
	if constant(ba) && constant(bb) {
		if ba[0] != bb[0] {
			out.P = 0
		}
		return out
	}
	r, err := mstats.TwoSampleWelchTTest(mstats.Sample{Xs: ba}, mstats.Sample{Xs: bb}, mstats.LocationDiffers)
	if err != nil {
		out.Warning = err.Error()
		return out
	}
	out.P = r.P
	return out
}

func constant(xs []float64) bool {
	for _, x := range xs {
		if x != xs[0] {
			return false
		}
	}
	return true
}

// Interval is a throughput (or any rate) measured over one run with its 95 % confidence
// interval: Mean ± Half.
type Interval struct {
	Mean, Half float64
	// Batches is how many batch means the interval was computed from.
	Batches int
}

// String is "936 ± 21".
func (i Interval) String() string {
	return strconv.FormatFloat(i.Mean, 'f', 0, 64) + " ± " + strconv.FormatFloat(math.Ceil(i.Half), 'f', 0, 64)
}

// SeriesInterval is the mean of a steady-state per-second series with its 95 % confidence
// interval by the method of batch means (as CompareSeries): the batches' means are nearly
// independent and normal, so the interval is Student's t over them. A median interval from
// order statistics would be infinite for 5 batches, and the seconds themselves are
// autocorrelated (an interval over them would be too narrow). False when the series is too
// short for MinBatches batches.
func SeriesInterval(series []float64) (Interval, bool) {
	b := Batches(series)
	if b == nil {
		return Interval{}, false
	}
	s := mstats.Sample{Xs: b}
	k := float64(len(b))
	t := mstats.InvCDF(mstats.TDist{V: k - 1})(1 - (1-Confidence)/2)
	return Interval{Mean: s.Mean(), Half: t * s.StdDev() / math.Sqrt(k), Batches: len(b)}, true
}

// Methods of comparing capacities (report.CompareCapacity).
const (
	// Normal: the difference of two capacities against the spread their intervals state (each
	// run's standard deviation as a second run of it would land), as a normal deviate.
	Normal Method = "normal over the capacities' stated spreads"
	// WelchRuns: Welch's t test over the capacities of repeated searches (their spread
	// measured, not assumed).
	WelchRuns Method = "Welch t over the searches' capacities"
)

// CompareNormal compares two values a and b whose standard deviations (one measurement's, not a
// mean's) are sdA and sdB: the p-value of their difference as a normal deviate. n1 and n2 are
// how many measurements each value stands for, for the counts shown.
func CompareNormal(a, b, sdA, sdB float64, n1, n2 int) Comparison {
	out := Comparison{Method: Normal, P: 1, N1: n1, N2: n2, Alpha: Alpha}
	sd := math.Hypot(sdA, sdB)
	switch {
	case sd > 0:
		out.P = 2 * mstats.StdNormal.CDF(-math.Abs(b-a)/sd)
	case a != b:
		out.P = 0
	}
	return out
}

// CompareWelch compares repeated measurements a and b (two or more each) with Welch's t test
// over their values: where the values are nearly normal (a capacity over repeated searches) it
// can call a change from three a side, which the U test cannot (its least p is 0.1).
func CompareWelch(a, b []float64) Comparison {
	out := Comparison{Method: WelchRuns, P: 1, N1: len(a), N2: len(b), Alpha: Alpha}
	if len(a) < 2 || len(b) < 2 {
		out.Warning = "need two or more values a side"
		return out
	}
	if constant(a) && constant(b) {
		if a[0] != b[0] {
			out.P = 0
		}
		return out
	}
	r, err := mstats.TwoSampleWelchTTest(mstats.Sample{Xs: a}, mstats.Sample{Xs: b}, mstats.LocationDiffers)
	if err != nil {
		out.Warning = err.Error()
		return out
	}
	out.P = r.P
	return out
}

// PredictionHalf is the half-width of the 95 % prediction interval of one more measurement
// from the same population as values (two or more), about their mean: Student's t with n−1
// degrees of freedom times s·√(1 + 1/n). Few values give a wide interval, as they should.
func PredictionHalf(values []float64) (half, sd float64, ok bool) {
	n := float64(len(values))
	if n < 2 {
		return 0, 0, false
	}
	sd = mstats.StdDev(values)
	t := mstats.InvCDF(mstats.TDist{V: n - 1})(1 - (1-Confidence)/2)
	return t * sd * math.Sqrt(1+1/n), sd, true
}
