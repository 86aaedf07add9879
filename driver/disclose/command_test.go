package disclose

import (
	"slices"
	"testing"
)

// TestCommandAsTyped: the disclosed command names the binary as the user types it — under
// `go run` it was /tmp/go-build…/exe/tradebench, which nobody can run. Mutant:
// disclose-command-argv0 (Command returning args unchanged) fails.
func TestCommandAsTyped(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"/tmp/go-build3170/b001/exe/tradebench", "run", "--users", "50"}, []string{"tradebench", "run", "--users", "50"}},
		{[]string{"/home/u/go/bin/tradebench", "drive", "--url", "http://h/"}, []string{"tradebench", "drive", "--url", "http://h/"}},
		{[]string{"./mybench", "run"}, []string{"./mybench", "run"}}, // a renamed binary keeps its name
	} {
		if got := Command(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Command(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
