package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	mstats "github.com/aclements/go-moremath/stats"
)

// The U test's exact p-values for small samples are known in closed form: for two samples of 5
// with every value of one below every value of the other, p = 2/C(10,5) = 2/252 (two-sided);
// for two samples of 3 it is 2/C(6,3) = 0.1, which is why three runs a side can never show a
// difference at 5 %. Mutant: CompareRuns passing a twice (P=1) fails this test.
func TestCompareRunsKnownPValues(t *testing.T) {
	c := CompareRuns([]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10})
	if math.Abs(c.P-2.0/252) > 1e-12 || !c.Significant() || c.Counts() != "n=5" {
		t.Fatalf("separated samples of 5: got p=%v significant=%v %s, want p=2/252", c.P, c.Significant(), c.Counts())
	}
	c = CompareRuns([]float64{1, 2, 3}, []float64{4, 5, 6})
	if math.Abs(c.P-0.1) > 1e-12 || c.Significant() || c.Warning == "" {
		t.Fatalf("separated samples of 3: got p=%v significant=%v warning=%q, want p=0.1, not significant, a warning", c.P, c.Significant(), c.Warning)
	}
	if got := c.Noise(); got != "~ (p=0.100 n=3)" {
		t.Fatalf("noise string %q", got)
	}
	// interleaved: 1 4 | 2 5 | 3 6 → U = 3 of 9, exact p = 0.7 (enumerate the 20 splits)
	c = CompareRuns([]float64{1, 3, 5}, []float64{2, 4, 6})
	if math.Abs(c.P-0.7) > 1e-12 {
		t.Fatalf("interleaved samples: p=%v, want 0.7", c.P)
	}
}

// The median's distribution-free interval from order statistics: with 6 runs the widest
// interval [x(1), x(6)] covers the median with probability 1 − 2·(1/2)^6 = 0.96875 ≥ 95 %, the
// narrower [x(2), x(5)] only with 0.78125, so the 95 % interval is the whole range. With 5 runs
// no closed interval reaches 95 % (1 − 2/32 = 0.9375): the interval is open below, (−∞, x(5)],
// which covers the median with 1 − 1/32 = 0.96875.
// Mutant: Summary's Lo/Hi taken as Min/Max always fails the 5-run case.
func TestSummarizeKnownIntervals(t *testing.T) {
	s := Summarize([]float64{6, 1, 5, 2, 4, 3})
	if s.Median != 3.5 || s.Lo != 1 || s.Hi != 6 || math.Abs(s.Confidence-0.96875) > 1e-12 || s.Min != 1 || s.Max != 6 || s.N != 6 {
		t.Fatalf("6 runs: %+v", s)
	}
	s = Summarize([]float64{10, 20, 30, 40, 50})
	if s.Median != 30 || !math.IsInf(s.Lo, -1) || s.Hi != 50 || math.Abs(s.Confidence-0.96875) > 1e-12 || s.Min != 10 || s.Max != 50 {
		t.Fatalf("5 runs: %+v", s)
	}
	// 20 runs: the interval is [x(6), x(15)] (binomial(20, 1/2): P(6 ≤ K ≤ 14) = 0.9586)
	vals := make([]float64, 20)
	for i := range vals {
		vals[i] = float64(i + 1)
	}
	s = Summarize(vals)
	if s.Lo != 6 || s.Hi != 15 || s.Median != 10.5 {
		t.Fatalf("20 runs: %+v", s)
	}
}

// ar1 is a stationary AR(1) series with mean mu, lag-one autocorrelation phi and unit marginal
// variance: what a run's per-second throughput looks like (a slow second follows a slow second).
func ar1(r *rand.Rand, n int, mu, phi float64) []float64 {
	out := make([]float64, n)
	x := r.NormFloat64()
	sd := math.Sqrt(1 - phi*phi)
	for i := range out {
		x = phi*x + sd*r.NormFloat64()
		out[i] = mu + x
	}
	return out
}

// Batch means keep the false-alarm rate near the 5 % asked for on autocorrelated series, where a
// t test on the raw seconds (treating them as independent) raises far more false alarms; and a
// real shift of one standard deviation is found nearly always. Seeded: the rates are fixed
// numbers, not a matter of luck. Mutant: CompareSeries testing the raw series instead of
// Batches(a), Batches(b) raises the false-alarm rate above 30 % and fails.
func TestCompareSeriesAllowsForAutocorrelation(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const trials, n, phi = 1000, 120, 0.7
	falseBatch, falseRaw, found := 0, 0, 0
	for range trials {
		a, b := ar1(r, n, 100, phi), ar1(r, n, 100, phi)
		if CompareSeries(a, b).Significant() {
			falseBatch++
		}
		if raw, err := mstats.TwoSampleWelchTTest(mstats.Sample{Xs: a}, mstats.Sample{Xs: b}, mstats.LocationDiffers); err == nil && raw.P < Alpha {
			falseRaw++
		}
		if CompareSeries(a, ar1(r, n, 101, phi)).Significant() {
			found++
		}
	}
	fb, fr, power := float64(falseBatch)/trials, float64(falseRaw)/trials, float64(found)/trials
	t.Logf("false alarms: batch means %.3f, raw seconds %.3f; power at 1 sd: %.3f", fb, fr, power)
	if fb > 0.09 {
		t.Errorf("batch means raised false alarms in %.1f %% of identical pairs, want about 5 %%", 100*fb)
	}
	if fr < 3*fb {
		t.Errorf("the raw-seconds t test should raise far more false alarms than batch means (%.3f vs %.3f)", fr, fb)
	}
	if power < 0.85 {
		t.Errorf("a shift of one standard deviation was found in only %.1f %% of pairs", 100*power)
	}
}

// Series too short for batches are never called a change, and say why.
func TestCompareSeriesTooShort(t *testing.T) {
	c := CompareSeries([]float64{1, 1, 1}, []float64{9, 9, 9})
	if c.Significant() || c.Warning == "" {
		t.Fatalf("3-second series: %+v", c)
	}
	if b := Batches(make([]float64, 31)); len(b) != 8 {
		t.Fatalf("31 s: %d batches, want 8", len(b))
	}
}

// The batch-means interval of a series: the mean of its batches ± t(0.975, k−1)·s/√k. Eight
// batches of 3 s alternating 90 and 110: mean 100, s = 10.69, t(7) = 2.365: ± 8.94.
// Mutant: the normal quantile (1.96) instead of Student's t — the half-width was 7.41.
func TestSeriesInterval(t *testing.T) {
	var series []float64
	for i := range 8 {
		v := 90.0
		if i%2 == 1 {
			v = 110
		}
		series = append(series, v, v, v)
	}
	iv, ok := SeriesInterval(series)
	if !ok || iv.Batches != 8 || math.Abs(iv.Mean-100) > 1e-9 || math.Abs(iv.Half-8.94) > 0.01 {
		t.Errorf("interval %+v %v", iv, ok)
	}
	if iv.String() != "100 ± 9" {
		t.Errorf("%q", iv.String())
	}
	if _, ok := SeriesInterval(series[:14]); ok {
		t.Error("an interval from fewer than 5 batches")
	}
}
