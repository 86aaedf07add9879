// Package racetest tells a test whether it runs under the race detector (go test -race), for
// the few tests that must act on it: a bound the detector's overhead breaks (allocation counts,
// memory ceilings, offered rates), or work the detector's second pass over the suite gains
// nothing from (scripts/test; docs/guide.md, "The CI budget").
package racetest

import "testing"

// SkipSerial skips t under the race detector: for a test whose work runs in one goroutine (or
// in goroutines that share nothing, such as a SQLite database behind one connection), which
// the detector has nothing to check in but slows several times. The main pass of scripts/test
// still runs it; why says what the test does in one goroutine, for the skip's message.
func SkipSerial(t testing.TB, why string) {
	t.Helper()
	if Enabled {
		t.Skip("nothing for the race detector (the main pass runs it): " + why)
	}
}
