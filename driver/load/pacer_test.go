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

// TestStepsClosedForm: the rising staircase's closed form puts every arrival where walking the
// steps one by one does. Mutant: counting the arrivals before step i as Hold·(i·Start +
// Step·i(i+1)/2) (one step too many) moves arrivals a step late.
func TestStepsClosedForm(t *testing.T) {
	for _, s := range []Steps{{Start: 7, Step: 3, Hold: 1500 * time.Millisecond}, {Start: 1, Step: 100, Hold: time.Second}, {Start: 1000, Step: 0.5, Hold: 10 * time.Second}} {
		for n := int64(0); n < 200_000; n += 37 {
			got, ok := s.Arrival(n)
			want, wok := walkSteps(s, n)
			if ok != wok || (got-want).Abs() > time.Microsecond {
				t.Fatalf("%+v arrival %d: %v (%v), walking the steps %v (%v)", s, n, got, ok, want, wok)
			}
		}
	}
}

// walkSteps is Steps.Arrival by walking the staircase from the bottom.
func walkSteps(s Steps, n int64) (time.Duration, bool) {
	k, hold, before := float64(n), s.Hold.Seconds(), 0.0
	for i := 0; i < maxSteps; i++ {
		rate := s.Start + float64(i)*s.Step
		if rate <= 0 {
			return 0, false
		}
		if k < before+rate*hold {
			return seconds(float64(i)*hold + (k-before)/rate), true
		}
		before += rate * hold
	}
	return 0, false
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

// BenchmarkPacers: the cost of scheduling one arrival, which the open model pays per iteration.
// Steps finds its step by a closed form, so reaching the 100th step costs no more than the first.
func BenchmarkPacers(b *testing.B) {
	for _, c := range []struct {
		name string
		p    Pacer
		n    int64
	}{
		{"constant", Constant{Rate: 1000}, 1 << 20},
		{"ramp", Ramp{To: 1000, Over: time.Minute}, 1000},
		{"steps100", Steps{Start: 10, Step: 10, Hold: time.Second}, 50_000},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				c.p.Arrival(c.n + int64(i&1023))
			}
		})
	}
}
