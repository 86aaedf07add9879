package clock

import (
	"testing"
	"time"
)

// Now agrees with time.Now: between two time.Now readings, with a monotonic reading of its own
// (so Sub and Before use the monotonic clock), and it moves forward.
func TestNowAgreesWithTimeNow(t *testing.T) {
	before := time.Now()
	got := Now()
	after := time.Now()
	if got.Before(before) || got.After(after) {
		t.Fatalf("Now() = %v, not between %v and %v", got, before, after)
	}
	if got.String() == got.Round(0).String() { // String shows the monotonic reading, m=+…
		t.Fatalf("Now() = %v carries no monotonic reading", got)
	}
	time.Sleep(2 * time.Millisecond)
	if d := Now().Sub(got); d < 2*time.Millisecond {
		t.Fatalf("2 ms later Now() moved %v", d)
	}
	m := Mono()
	time.Sleep(2 * time.Millisecond)
	if d := Mono() - m; d < int64(2*time.Millisecond) {
		t.Fatalf("2 ms later Mono() moved %d ns", d)
	}
	if at := At(m); MonoOf(at) != m || at.After(Now()) {
		t.Fatalf("At(%d) = %v, MonoOf gives %d back", m, at, MonoOf(at))
	}
}

var sink time.Time

// Compare with BenchmarkTimeNow: the saving is one clock read per call.
func BenchmarkNow(b *testing.B) {
	for b.Loop() {
		sink = Now()
	}
}

func BenchmarkTimeNow(b *testing.B) {
	for b.Loop() {
		sink = time.Now()
	}
}
