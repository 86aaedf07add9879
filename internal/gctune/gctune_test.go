package gctune

import (
	"math"
	"os"
	"runtime/debug"
	"testing"
)

func TestApply(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))

	// $GOGC set: the user's settings stay, the memory limit too.
	t.Setenv("GOGC", "150")
	t.Setenv("GOMEMLIMIT", "")
	os.Unsetenv("GOMEMLIMIT")
	debug.SetGCPercent(150)
	if Apply() {
		t.Error("Apply with $GOGC set: reported applied")
	}
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("with $GOGC=150: GC percent %d after Apply, want 150 (the user's)", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("with $GOGC set: memory limit %d after Apply, want none", got)
	}

	// $GOGC unset (t.Setenv above restores it after the test): Percent, and a quarter of the
	// machine's memory as the soft limit.
	os.Unsetenv("GOGC")
	debug.SetGCPercent(100)
	if !Apply() {
		t.Error("Apply without $GOGC: reported not applied")
	}
	if got := Current(); got != Percent {
		t.Errorf("Current() = %d after Apply, want %d", got, Percent)
	}
	if got := debug.SetGCPercent(100); got != Percent {
		t.Errorf("without $GOGC: GC percent %d after Apply, want %d", got, Percent)
	}
	if got := Current(); got != 100 {
		t.Errorf("Current() = %d after SetGCPercent(100)", got)
	}
	m := machineMemory()
	if m <= 0 {
		t.Fatal("machineMemory: 0 on Linux")
	}
	if got := debug.SetMemoryLimit(-1); got != m/4 {
		t.Errorf("memory limit %d after Apply, want a quarter of %d", got, m)
	}

	// $GOMEMLIMIT set: the user's limit stays.
	debug.SetMemoryLimit(math.MaxInt64)
	t.Setenv("GOMEMLIMIT", "1GiB")
	Apply()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("with $GOMEMLIMIT set: Apply changed the limit to %d", got)
	}
}
