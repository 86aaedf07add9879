// Package clock reads the time for the driver's hot path with one monotonic clock read.
//
// time.Now reads two clocks (wall and monotonic); on virtual machines each read is a vDSO call
// of 100 ns or more, and the driver reads the clock several times per request. Now derives the
// wall time from the monotonic reading and a base taken at start-up, so it costs one read. Its
// results compare, subtract and order exactly like time.Now's (comparisons use the monotonic
// reading), and their wall time is that of the process start plus the elapsed monotonic time:
// a step of the system clock while the driver runs does not move them.
package clock

import "time"

var base = time.Now()

// Now is the current time from one monotonic clock read.
func Now() time.Time { return base.Add(time.Since(base)) }

// At is the time of a Mono reading.
func At(mono int64) time.Time { return base.Add(time.Duration(mono)) }

// MonoOf is t as a Mono reading (t should carry a monotonic reading, as time.Now's do).
func MonoOf(t time.Time) int64 { return int64(t.Sub(base)) }

// Mono is the monotonic time in nanoseconds since an arbitrary origin fixed for the process:
// the cheapest reading, for deadlines and intervals that are never shown.
func Mono() int64 { return int64(time.Since(base)) }
