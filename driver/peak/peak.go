// Package peak finds a system's peak sustained throughput the way the 2007 paper's engineers did by
// hand: add virtual users in steps, measure each step's steady state, and stop when throughput
// stops rising, a latency bound is crossed or errors appear. The peak is the best step that
// stayed within the bounds.
package peak

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tradebench/tradebench/report"
)

// Config is a search's steps and stopping rules.
type Config struct {
	Start, Step, MaxUsers int
	// StepDuration is each step's measured steady state.
	StepDuration time.Duration
	// MaxP90 is the latency bound on the all-transactions p90 (0 = none).
	MaxP90 time.Duration
	// MaxErrorRate is the largest acceptable error rate of a step (a fraction; 0 = none allowed).
	MaxErrorRate float64
	// MinGain is the relative TPS gain over the best step so far that counts as still rising
	// (0 = 0.03); Patience is how many steps in a row without it end the search (0 = 2).
	MinGain  float64
	Patience int
}

// Defaults of a peak search. DefaultMaxP90 and DefaultMaxErrorRate are the command line's bounds
// (a zero Config has none).
const (
	DefaultStart        = 10
	DefaultMaxUsers     = 10000
	DefaultStepDuration = 30 * time.Second
	DefaultMinGain      = 0.03
	DefaultMaxP90       = 500 * time.Millisecond
	DefaultMaxErrorRate = 0.0001
)

// Defaults fills zero fields.
func (c *Config) Defaults() {
	if c.Start <= 0 {
		c.Start = DefaultStart
	}
	if c.Step <= 0 {
		c.Step = c.Start
	}
	if c.MaxUsers <= 0 {
		c.MaxUsers = DefaultMaxUsers
	}
	if c.StepDuration <= 0 {
		c.StepDuration = DefaultStepDuration
	}
	if c.MinGain <= 0 {
		c.MinGain = DefaultMinGain
	}
	if c.Patience <= 0 {
		c.Patience = 2
	}
}

// Validate reports impossible settings.
func (c Config) Validate() error {
	switch {
	case c.Start > c.MaxUsers:
		return fmt.Errorf("peak search starts at %d users, above its maximum of %d", c.Start, c.MaxUsers)
	case c.MaxErrorRate < 0 || c.MaxErrorRate > 1:
		return fmt.Errorf("peak search error rate must be a fraction between 0 and 1, got %g", c.MaxErrorRate)
	case c.MaxP90 < 0:
		return errors.New("peak search latency bound must not be negative")
	}
	return nil
}

// RunFunc runs one step with users virtual users and returns its results.
type RunFunc func(ctx context.Context, step, users int) (*report.Results, error)

// Search steps users up from Start. It returns the search and the results of the peak step
// (nil if no step stayed within the bounds), with Peak filled in.
func Search(ctx context.Context, cfg Config, run RunFunc) (*report.PeakSearch, *report.Results, error) {
	cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	ps := &report.PeakSearch{}
	var best *report.Results
	bestTPS, stale := 0.0, 0
	for step, users := 1, cfg.Start; ; step, users = step+1, users+cfg.Step {
		res, err := run(ctx, step, users)
		if res == nil {
			if err == nil {
				err = errors.New("step produced no results")
			}
			return ps, best, err
		}
		ps.Steps = append(ps.Steps, report.PeakStep{Step: step, Users: users, TPS: res.Total.TPS, P90Ms: res.Total.P90Ms, P99Ms: res.Total.P99Ms, ErrorRate: res.ErrorRate()})
		if err != nil { // interrupted: keep what was found
			ps.StopWhy = "interrupted"
			return finish(ps, best), best, err
		}
		if cfg.MaxP90 > 0 && res.Total.P90Ms > float64(cfg.MaxP90)/float64(time.Millisecond) {
			ps.StopWhy = fmt.Sprintf("p90 %.1f ms at %d users crossed the %v bound", res.Total.P90Ms, users, cfg.MaxP90)
			break
		}
		if er := res.ErrorRate(); er > cfg.MaxErrorRate {
			ps.StopWhy = fmt.Sprintf("error rate %.4f%% at %d users is above %.4f%%", 100*er, users, 100*cfg.MaxErrorRate)
			break
		}
		tps := res.Total.TPS
		if tps >= bestTPS*(1+cfg.MinGain) && tps > 0 {
			stale = 0
		} else {
			stale++
		}
		if tps > bestTPS {
			bestTPS, best = tps, res
			ps.PeakTPS, ps.PeakUsers, ps.PeakStep = tps, users, step
		}
		if stale >= cfg.Patience {
			ps.StopWhy = fmt.Sprintf("throughput rose less than %.0f%% over the best for %d steps", 100*cfg.MinGain, cfg.Patience)
			break
		}
		if users+cfg.Step > cfg.MaxUsers {
			ps.StopWhy = fmt.Sprintf("reached the maximum of %d users", cfg.MaxUsers)
			break
		}
	}
	return finish(ps, best), best, nil
}

func finish(ps *report.PeakSearch, best *report.Results) *report.PeakSearch {
	if best != nil {
		best.Peak = ps
	}
	return ps
}
