package fleet

import (
	"fmt"
	"io"
	"time"

	"github.com/tradebench/tradebench/driver/load"
)

// progress draws the fleet's live line: the whole fleet's second, merged.
type progress struct {
	w      io.Writer
	tty    bool
	every  time.Duration
	last   time.Time
	lc     load.Config
	agents int
}

func newProgress(lc load.Config, w io.Writer, agents int) *progress {
	return &progress{w: w, tty: lc.ProgressTTY, every: 10 * time.Second, lc: lc, agents: agents}
}

func (p *progress) line(now, at time.Time, sec int, s *second, running int) {
	if p.lc.Progress == nil {
		return
	}
	pt := s.point(sec)
	total := p.lc.RampUp + p.lc.Steady + p.lc.RampDown
	el := min(time.Duration(sec)*time.Second, total)
	who := fmt.Sprintf("users %d", pt.Users)
	if p.lc.Open() {
		who = fmt.Sprintf("in-flight %d", pt.Users)
	}
	line := fmt.Sprintf("%s [%-9s %s/%s] agents %d/%d  %s  tps %.0f  p50 %.1fms  p90 %.1fms  p99 %.1fms  errors %d  hits/s %d",
		p.lc.Label, pt.Phase, load.Clock(el), load.Clock(total), running, p.agents, who, pt.TPS, pt.P50Ms, pt.P90Ms, pt.P99Ms, pt.Errors, pt.Hits)
	switch {
	case p.tty:
		fmt.Fprintf(p.w, "\r\033[K%s", line)
	case now.Sub(p.last) >= p.every:
		fmt.Fprintln(p.w, line)
		p.last = now
	}
}

func (p *progress) done() {
	if p.lc.Progress != nil && p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
