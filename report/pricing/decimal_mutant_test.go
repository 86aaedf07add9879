package pricing

import "testing"

// TestPerTPSHalfCentOnTheDecimal: $0.01 per 0.4 TPS is exactly 2.5 cents, which rounds half away
// from zero to $0.03. Through a float64, 0.4 is 0.400000000000000022…, the quotient just under
// 2.5 cents, and the price $0.02: a case that only exact decimal arithmetic gets right
// (TestPerTPSRounding's 0.1 TPS rounds to the same cent either way).
//
// Mutant killed: the TPS converted through a float64 in PerTPSCents
// (`new(big.Rat).SetFloat64(tps)` instead of the shortest decimal's text).
func TestPerTPSHalfCentOnTheDecimal(t *testing.T) {
	for _, c := range []struct {
		total string
		tps   float64
		want  string
	}{
		{"0.01", 0.4, "0.03"},   // 2.5 cents
		{"10.01", 0.4, "25.03"}, // 2502.5 cents
	} {
		total, err := ParseCents(c.total)
		if err != nil {
			t.Fatal(err)
		}
		if got := FormatCents(PerTPSCents(total, c.tps)); got != c.want {
			t.Errorf("%s / %g = %s, want %s", c.total, c.tps, got, c.want)
		}
	}
}
