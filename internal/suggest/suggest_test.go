package suggest

import "testing"

// TestNearest: a typo, a transposition and a prefix find their name; a name far from every
// known one finds none (no suggestion is better than a wrong one). Mutant: suggest-no-bound
// (Nearest returning the closest name however far) fails on the far names.
func TestNearest(t *testing.T) {
	known := []string{"stocktrader", "buysell", "daytrader-mix", "inprocess", "soap", "rest", "grpc"}
	for _, tc := range []struct{ in, want string }{
		{"stocktrade", "stocktrader"}, {"stoktrader", "stocktrader"}, {"buysel", "buysell"}, {"daytrader", "daytrader-mix"},
		{"in-process", "inprocess"}, {"REST", "rest"}, {"gprc", "grpc"}, {"res", "rest"},
		{"xyz", ""}, {"postgres", ""}, {"", ""},
	} {
		if got := Nearest(tc.in, known); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := DidYouMean("buysel", known); got != " (did you mean buysell?)" {
		t.Errorf("DidYouMean: %q", got)
	}
}
