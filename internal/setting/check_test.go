package setting

import (
	"errors"
	"testing"
	"time"
)

// TestNotNegative: a negative value is refused naming its field and the value as the type
// prints it (a duration as 1s, not 1000000000); zero and positive pass. First keeps the order.
// Mutant (setting-negative-passes): NotNegative testing v < -1 — a -1 passes.
func TestNotNegative(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{NotNegative("Timeout", -time.Second), "Timeout: must not be negative, got -1s"},
		{NotNegative("Iterations", -1), "Iterations: must not be negative, got -1"},
		{NotNegative("BodyBudget", int64(-1)), "BodyBudget: must not be negative, got -1"},
	} {
		var se *Error
		if c.err == nil || !errors.As(c.err, &se) || c.err.Error() != c.want {
			t.Errorf("got %v, want %s", c.err, c.want)
		}
	}
	if err := First(NotNegative("A", 0), NotNegative("B", time.Second), nil); err != nil {
		t.Errorf("zero and positive values: %v", err)
	}
	if err := First(nil, NotNegative("A", -1), NotNegative("B", -2)); err == nil || err.Error() != "A: must not be negative, got -1" {
		t.Errorf("First: %v, want A's error", err)
	}
}
