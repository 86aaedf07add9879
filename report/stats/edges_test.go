package stats

import (
	"math/rand/v2"
	"testing"
)

// A server answering exactly 100 transactions every second against one answering exactly 120 is
// a real difference, though neither series varies (a t test has no variance to work with).
// Mutant stats-constant-series-p1: two constant series at different levels get p = 1.
func TestCompareSeriesConstantLevels(t *testing.T) {
	a, b := make([]float64, 30), make([]float64, 30)
	for i := range a {
		a[i], b[i] = 100, 120
	}
	if c := CompareSeries(a, b); !c.Significant() {
		t.Errorf("100 vs 120 every second: %+v, want significant", c)
	}
	if c := CompareSeries(a, a); c.Significant() {
		t.Errorf("100 vs 100 every second: %+v, want not significant", c)
	}
}

// The test is two-tailed: a drop is found as surely as a rise (a regression is the change a
// user most needs to see).
// Mutants stats-one-tailed-greater and stats-one-tailed-less: the Welch test asked only whether
// the first mean is greater (or less) — one direction's change then reads p ≈ 1.
func TestCompareSeriesFindsBothDirections(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	base := ar1(r, 60, 100, 0.3)
	up, down := ar1(r, 60, 103, 0.3), ar1(r, 60, 97, 0.3)
	if c := CompareSeries(base, up); !c.Significant() {
		t.Errorf("a rise of 3 sd: %+v, want significant", c)
	}
	if c := CompareSeries(base, down); !c.Significant() {
		t.Errorf("a drop of 3 sd: %+v, want significant", c)
	}
	// and symmetric: the same pair in either order gives the same p
	if p1, p2 := CompareSeries(base, down).P, CompareSeries(down, base).P; p1 != p2 {
		t.Errorf("p depends on the order of the pair: %g vs %g", p1, p2)
	}
}
