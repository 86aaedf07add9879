package load

import (
	"testing"
	"time"
)

// TestPacers: each shape puts arrival n where the area under its rate reaches n, and never
// schedules an arrival before the one it follows. Mutants: Ramp's ramped arrivals computed as
// To·Over (the ramp counted at full rate) moves arrival 50 of 0→100/s over 1 s from 1 s to
// 0.5 s.
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
	// a schedule that ends: no rate at all
	if _, ok := (Constant{}).Arrival(1); ok {
		t.Error("a zero constant rate scheduled an arrival")
	}
}

// BenchmarkPacers: the cost of scheduling one arrival, which the open model pays per iteration.
func BenchmarkPacers(b *testing.B) {
	for _, c := range []struct {
		name string
		p    Pacer
		n    int64
	}{
		{"constant", Constant{Rate: 1000}, 1 << 20},
		{"ramp", Ramp{To: 1000, Over: time.Minute}, 1000},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				c.p.Arrival(c.n + int64(i&1023))
			}
		})
	}
}
