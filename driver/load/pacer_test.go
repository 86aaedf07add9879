package load

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestPacers: each shape puts arrival n where the area under its rate reaches n, and never
// schedules an arrival before the one it follows. Mutants: Ramp's ramped arrivals computed as
// To·Over (the ramp counted at full rate) moves arrival 50 of 0→100/s over 1 s from 1 s to
// 0.5 s; Steps not adding Step per step puts arrival 30 at 3 s, not 2 s.
func TestPacers(t *testing.T) {
	for _, c := range []struct {
		name string
		p    Pacer
		n    int64
		want time.Duration
	}{
		{"constant first", Constant{Rate: 10}, 0, 0},
		{"constant", Constant{Rate: 10}, 10, time.Second},
		{"ramp end", Ramp{To: 100, Over: time.Second}, 50, time.Second},
		{"ramp middle", Ramp{To: 100, Over: 2 * time.Second}, 25, time.Second}, // 100/2·1²/2
		{"ramp held", Ramp{To: 100, Over: time.Second}, 150, 2 * time.Second},
		{"ramp from", Ramp{From: 100, To: 300, Over: time.Second}, 200, time.Second},
		{"ramp down", Ramp{From: 300, To: 100, Over: time.Second}, 200, time.Second},
		{"no ramp", Ramp{To: 20}, 20, time.Second},
		{"steps first", Steps{Start: 10, Step: 10, Hold: time.Second}, 10, time.Second},
		{"steps second", Steps{Start: 10, Step: 10, Hold: time.Second}, 30, 2 * time.Second},
		{"steps inside", Steps{Start: 10, Step: 10, Hold: time.Second}, 40, 2*time.Second + time.Second/3},
	} {
		at, ok := c.p.Arrival(c.n)
		if !ok || (at-c.want).Abs() > time.Millisecond {
			t.Errorf("%s: arrival %d at %v (%v), want %v", c.name, c.n, at, ok, c.want)
		}
		var last time.Duration
		for n := int64(0); n < 500; n++ {
			at, ok := c.p.Arrival(n)
			if !ok || at < last {
				t.Fatalf("%s: arrival %d at %v (%v) after %v", c.name, n, at, ok, last)
			}
			last = at
		}
	}
	// schedules that end: no rate at all, a staircase that steps down to nothing
	if _, ok := (Constant{}).Arrival(1); ok {
		t.Error("a zero constant rate scheduled an arrival")
	}
	if _, ok := (Steps{Start: 10, Step: -10, Hold: time.Second}).Arrival(10); ok {
		t.Error("a staircase down to 0/s scheduled an arrival past its last step")
	}
}

// TestRunUsesPacer: Config.Pacer replaces Rate's ramp. A staircase of 50/s then 150/s over two
// one-second holds offers 200 arrivals in the 2 s steady state (no ramp-up); Rate alone (0 here)
// would offer none. Mutant: runOpen ignoring Config.Pacer (using Rate's ramp) starts nothing
// (0 iterations).
func TestRunUsesPacer(t *testing.T) {
	var n atomic.Int64
	w := Func(func(ctx context.Context, it *Iteration) error {
		n.Add(1)
		s := it.StartTx()
		it.Done("tx", s, nil)
		return nil
	})
	res, err := Run(context.Background(), Config{Pacer: Steps{Start: 50, Step: 100, Hold: time.Second}, Steady: 2 * time.Second}, w)
	if err != nil {
		t.Fatal(err)
	}
	// the arrivals due before the steady state's end are all launched: 50 + 150, give or take
	// the one on the boundary
	if got := n.Load(); got < 199 || got > 200 {
		t.Fatalf("%d iterations, want the staircase's 200", got)
	}
	if res.Settings.Model != "open" {
		t.Fatalf("model %q, want open", res.Settings.Model)
	}
}
