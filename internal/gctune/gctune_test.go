package gctune

import (
	"os"
	"runtime/debug"
	"testing"
)

func TestApply(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))

	// $GOGC set: the user's setting stays.
	t.Setenv("GOGC", "150")
	debug.SetGCPercent(150)
	if Apply() {
		t.Error("Apply with $GOGC set: reported applied")
	}
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("with $GOGC=150: GC percent %d after Apply, want 150 (the user's)", got)
	}

	// $GOGC unset (t.Setenv above restores it after the test): Percent.
	os.Unsetenv("GOGC")
	debug.SetGCPercent(100)
	if !Apply() {
		t.Error("Apply without $GOGC: reported not applied")
	}
	if got := debug.SetGCPercent(100); got != Percent {
		t.Errorf("without $GOGC: GC percent %d after Apply, want %d", got, Percent)
	}
}
