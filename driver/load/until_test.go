package load

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/clock"
)

// A user's context has ended at its stop time by the clock, not when the timer that cancels it
// happens to run: on a busy machine the timer runs late, and a transaction begun in between is
// sent but neither measured nor counted as stopped (an order the reconciliation cannot explain).
// The stop is a cancellation (counted "stop"), not a deadline (counted a failure). Mutant: Err
// without the clock — the past stop time reads as not yet reached.
func TestUserStopsAtItsTimeNotItsTimer(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	past := until{parent, clock.Now().Add(-time.Millisecond)}
	if err := past.Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("a user past its stop time, its timer not yet run: Err() = %v, want context.Canceled", err)
	}
	future := until{parent, clock.Now().Add(time.Hour)}
	if err := future.Err(); err != nil {
		t.Fatalf("a user before its stop time: Err() = %v, want nil", err)
	}
	cancel()
	if err := future.Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("a user whose run was cancelled: Err() = %v, want context.Canceled", err)
	}
}
