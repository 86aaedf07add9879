package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// CountEvery is how often a Count writes a plain line to a writer that is not a terminal: a
// load is shorter than a run, so its lines come more often than a run's (DefaultEvery).
const CountEvery = 5 * time.Second

// Count is the progress of work counted up to a known total — the rows of a data set loaded,
// the items of CachePerf's table written — where a run's Line shows seconds. Its Update is the
// callback every loader takes (trade/store's and blobstore's Load), so one printer draws them
// all: a bar redrawn in place on a terminal, elsewhere (a log, CI) a plain line every Every and
// the last one. It is safe for use by several goroutines.
type Count struct {
	w     io.Writer // nil: nothing is drawn
	tty   bool
	label string
	unit  string

	// Every is a plain writer's interval (0 = CountEvery).
	Every time.Duration
	// UnitBytes, when above 0, is the bytes of one unit: the lines add the throughput in MiB/s.
	UnitBytes int64

	mu    sync.Mutex
	start time.Time
	last  time.Time
	drawn bool
}

// NewCount is the progress of label's work counted in units ("rows", "items") on w (nil: none),
// redrawn in place when tty. Its clock starts now.
func NewCount(w io.Writer, tty bool, label, unit string) *Count {
	return &Count{w: w, tty: tty, label: label, unit: unit, start: time.Now()}
}

// Update shows done of total; a plain writer gets a line at most every Every, and the last
// (done == total) always.
func (c *Count) Update(done, total int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.w == nil || total <= 0 {
		return
	}
	now := time.Now()
	every := c.Every
	switch {
	case c.tty:
		every = 100 * time.Millisecond
	case every <= 0:
		every = CountEvery
	}
	if now.Sub(c.last) < every && done < total {
		return
	}
	c.last = now
	frac := float64(done) / float64(total)
	elapsed := now.Sub(c.start).Round(100 * time.Millisecond)
	rate := ""
	if s := now.Sub(c.start).Seconds(); c.UnitBytes > 0 && s > 0 {
		rate = fmt.Sprintf(" %.0f MiB/s", float64(done*c.UnitBytes)/(1<<20)/s)
	}
	if !c.tty {
		fmt.Fprintf(c.w, "%s: %3.0f%% (%d of %d %s) %s%s\n", c.label, 100*frac, done, total, c.unit, elapsed, rate)
		return
	}
	const width = 30
	n := int(frac * width)
	bar := strings.Repeat("=", n) + strings.Repeat(" ", width-n)
	fmt.Fprintf(c.w, "\r%s [%s] %3.0f%% %d/%d %s %s%s ", c.label, bar, 100*frac, done, total, c.unit, elapsed, rate)
	c.drawn = true
}

// End ends a terminal's bar with a newline, so what follows starts on a line of its own.
func (c *Count) End() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.drawn {
		fmt.Fprintln(c.w)
		c.drawn = false
	}
}
