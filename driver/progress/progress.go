// Package progress draws a run's live progress line from the seconds the load engine emits: a
// Line is a load.Watcher, the way vegeta's reporters render what its attack emits. The engine
// measures and knows no terminal, and one reporter draws local and distributed runs alike (a
// distributed run's controller feeds its watchers the fleet's merged seconds).
package progress

import (
	"fmt"
	"io"
	"time"

	"github.com/tradebench/tradebench/driver/load"
	"github.com/tradebench/tradebench/report"
)

// DefaultEvery is how often a writer that is not a terminal gets a line.
const DefaultEvery = 10 * time.Second

// Line is one run's progress line. On a terminal it is redrawn in place each second; other
// writers (a log file, CI) get the first second's line, to show the run has started, and then
// one line every Every, so a long run does not flood them.
type Line struct {
	W     io.Writer     // where the line goes (nil: nowhere)
	TTY   bool          // W is a terminal: redraw in place
	Every time.Duration // a plain writer's interval (0 = DefaultEvery)
	Label string        // what runs, e.g. the scenario's name
	Total time.Duration // the run's length, ramp-up to ramp-down end
	Open  bool          // the open model: Users counts iterations in flight

	last time.Time
}

// Second draws second s (a Line is a load.Watcher): s.Point carries the percentiles, s.Status
// the emitter's own words (a fleet's "agents 3/3"), and in the open model the arrivals dropped
// so far are shown.
func (l *Line) Second(s *load.Second) {
	if l.W == nil {
		return
	}
	status := s.Status
	if l.Open {
		status = join(status, fmt.Sprintf("dropped %d", s.Dropped))
	}
	now := time.Now()
	switch {
	case l.TTY:
		fmt.Fprintf(l.W, "\r\033[K%s", l.Text(s.Point, status))
	case l.last.IsZero() || now.Sub(l.last) >= l.every():
		fmt.Fprintln(l.W, l.Text(s.Point, status))
		l.last = now
	}
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "  " + b
}

func (l *Line) every() time.Duration {
	if l.Every > 0 {
		return l.Every
	}
	return DefaultEvery
}

// Text is second p's line with the emitter's status words, without the terminal's control codes.
func (l *Line) Text(p report.SeriesPoint, status string) string {
	el := min(time.Duration(p.Second)*time.Second, l.Total)
	who := fmt.Sprintf("users %d", p.Users)
	if l.Open {
		who = fmt.Sprintf("in-flight %d", p.Users)
	}
	if status != "" {
		who = status + "  " + who
	}
	label := l.Label
	if label != "" {
		label += " "
	}
	return fmt.Sprintf("%s[%-9s %s/%s] %s  tps %.0f  p50 %.1fms  p90 %.1fms  p99 %.1fms  errors %d  hits/s %d",
		label, p.Phase, Clock(el), Clock(l.Total), who, p.TPS, p.P50Ms, p.P90Ms, p.P99Ms, p.Errors, p.Hits)
}

// End clears a terminal's line when the run ends, so what follows starts on a clean line (a
// Line is a load.Ender).
func (l *Line) End() {
	if l.W != nil && l.TTY {
		fmt.Fprint(l.W, "\r\033[K")
	}
}

// Clock shows d as minutes:seconds, as the progress line does.
func Clock(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
