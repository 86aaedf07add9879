package cliflag

import (
	"flag"
	"io"
	"testing"
)

// TestFraction: a share is given as 0.2 or 20%, kept as the fraction, printed as a percentage;
// it is refused below 0 and above its bound (none for an unbounded one), naming the flag.
// Mutant: cliflag-fraction-unbounded (the bound ignored) → "--rule 150% was taken".
func TestFraction(t *testing.T) {
	var bounded, open float64 = 0.8, 0.2
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	AddFraction(fs, &bounded, "rule", 1, "")
	AddFraction(fs, &open, "variation", 0, "")
	if d := fs.Lookup("rule").DefValue; d != "80%" {
		t.Errorf("default printed %q, want 80%%", d)
	}
	if err := Parse(fs, []string{"--rule", "25%", "--variation", "1.5"}, false); err != nil || bounded != 0.25 || open != 1.5 {
		t.Fatalf("25%% and 1.5: %v, %v, %v", bounded, open, err)
	}
	for _, bad := range [][]string{{"--rule", "150%"}, {"--rule", "-1%"}, {"--rule", "x"}, {"--variation", "-0.1"}} {
		if err := Parse(fs, bad, false); err == nil {
			t.Errorf("%s %s was taken", bad[0], bad[1])
		}
	}
}
