package report

import "fmt"

// StreamDelivery is what event stream subscribers held open during a run measured (drive
// --stream-subscribers): how many were connected and how long events took from their publish
// time to being read.
type StreamDelivery struct {
	URL         string `json:"url"`
	Subscribers int    `json:"subscribers"`
	Connected   int    `json:"connected_at_start"` // subscribers connected when the load started
	// Delivery is the publish → receipt latency of events received in the measured window,
	// over all subscribers (Count = events).
	Delivery Transaction `json:"delivery"`
	// EventsPerSec is events received per second of the measured window, all subscribers.
	EventsPerSec float64 `json:"events_per_sec"`
	Reconnects   int64   `json:"reconnects"` // streams that ended or broke and were reopened
	Refused      int64   `json:"refused"`    // connection attempts answered with an error status (503 at the cap)
	ConnectErrs  int64   `json:"connect_errors"`
	Untimed      int64   `json:"untimed"` // events whose data had no readable time field
}

// Line is the one-line summary printed under the transaction table.
func (r StreamDelivery) Line() string {
	d := r.Delivery
	return fmt.Sprintf("stream: %d subscribers (%d connected at start), %d events (%.0f/s) in the steady state, publish→receipt p50 "+
		"%.2fms p90 %.2fms p99 %.2fms p99.9 %.2fms max %.2fms; %d reconnects, %d refused",
		r.Subscribers, r.Connected, d.Count, r.EventsPerSec, d.P50Ms, d.P90Ms, d.P99Ms, d.P999Ms, d.MaxMs, r.Reconnects, r.Refused)
}
