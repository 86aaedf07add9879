package load

import (
	"math"
	"time"
)

// A Pacer schedules the open model's arrivals, as vegeta's Pacer does, but by intended instant
// rather than by wait: Arrival returns when arrival n (0-based, in order) is due, as an offset
// from the run's start, and false when the schedule has no arrival n. The engine measures every
// iteration's latency from that instant, so a stalled server cannot hide its stall (no
// coordinated omission), and launches every arrival already due at once, so a slow scheduler
// catches up instead of drifting. Arrival must not decrease as n grows and must be safe to call
// with any n ≥ 0; the run's phases, not the pacer, end the arrivals (none after the steady state).
//
// Constant and Ramp are the shapes a run needs (an open-model capacity search runs one Ramp per
// step).
type Pacer interface {
	Arrival(n int64) (at time.Duration, ok bool)
}

// Constant is a fixed arrival rate, Rate per second from the start.
type Constant struct{ Rate float64 }

// Arrival implements Pacer.
func (c Constant) Arrival(n int64) (time.Duration, bool) {
	if !(c.Rate > 0) {
		return 0, false
	}
	return seconds(float64(n) / c.Rate), true
}

// Ramp changes the rate linearly from From to To over Over, then holds To: the default open
// model is Ramp{To: Rate, Over: RampUp}, arrivals rising from nothing through ramp-up.
type Ramp struct {
	From, To float64
	Over     time.Duration
}

// Arrival implements Pacer. Arrival n solves N(t) = n, where N(t) = From·t + (To−From)·t²/(2·Over)
// during the ramp (the area under the rate) and N(Over) + To·(t − Over) after it.
func (r Ramp) Arrival(n int64) (time.Duration, bool) {
	k := float64(n)
	over := r.Over.Seconds()
	if over <= 0 {
		return Constant{r.To}.Arrival(n)
	}
	a := (r.To - r.From) / (2 * over)
	if ramped := r.From*over + a*over*over; k >= ramped {
		if !(r.To > 0) {
			return 0, false
		}
		return seconds(over + (k-ramped)/r.To), true
	}
	if k == 0 {
		return 0, true
	}
	// the root of a·t² + From·t − k = 0 in the form that stays exact when a or From is 0
	d := r.From*r.From + 4*a*k
	if d < 0 || r.From+math.Sqrt(d) <= 0 {
		return 0, false
	}
	return seconds(2 * k / (r.From + math.Sqrt(d))), true
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
