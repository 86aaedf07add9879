package driver

import (
	"context"
	"fmt"

	"github.com/tradebench/tradebench/report"
)

// HTTP is the driver's own workload: the scenario (or quick mode's one URL) a Config names,
// driven over HTTP by virtual users (package vuser). Before the load it reads a tradebench
// target's data set to size the scenario and tries the scenario's first request once (the
// preflight); with a Distributor it runs on load agents.
var HTTP Workload = httpWorkload{}

type httpWorkload struct{}

// Prepare implements Workload.
func (httpWorkload) Prepare(ctx context.Context, cfg *Config) (*Run, error) {
	p, err := NewPlan(*cfg)
	if err != nil {
		return nil, err
	}
	*cfg = p.cfg
	s := &httpSteps{plan: p}
	run := &Run{Name: p.sc.Name, Target: p.target, Users: p.w, Steps: s}
	if p.quick {
		run.Target = cfg.URL
	}
	if cfg.Distributor != nil {
		run.Steps = distributedSteps{s}
	}
	return run, nil
}

// httpSteps are the HTTP workload's steps around its load: the plan it drives (the one Prepare
// made, or the one the preflight sized to the target) and what the preflight read of the target.
type httpSteps struct {
	plan *Plan
	tc   *targetConfig // the target's /trade/config.json; nil: not a tradebench target, or not read
}

// Preflight reads a tradebench target's data set and, when the scenario's users and quotes are
// not the target's, plans the drive again with them (cfg and run then say so); then it tries the
// scenario's first request once.
func (s *httpSteps) Preflight(ctx context.Context, cfg *Config, run *Run) error {
	p := s.plan
	if !p.quick && !cfg.NoPreflight {
		s.tc = fetchTargetConfig(ctx, p.target, p.http)
	}
	params, changed, err := sizeFromTarget(cfg.Params, func(name string) bool { _, ok := p.sc.Param(name); return ok }, s.tc)
	if err != nil {
		return err
	}
	if changed {
		c := *cfg
		c.Params = params
		if p, err = NewPlan(c); err != nil {
			return err
		}
		s.plan, *cfg, run.Users = p, p.cfg, p.w
		run.Notes = append(run.Notes, fmt.Sprintf("scenario sized to the target's data set (/trade/config.json): users=%s, quotes=%s", params["users"], params["quotes"]))
	}
	if cfg.NoPreflight {
		return nil
	}
	return p.Preflight(ctx)
}

// Describe implements Steps: the drive's settings, the scenario, the target's configuration.
func (s *httpSteps) Describe(ctx context.Context, res *report.Results) error {
	p := s.plan
	p.describe(res)
	orderTransactions(res, p.sc.TransactionNames())
	if res.Disclosure == nil { // the live dashboard's first frame
		return nil
	}
	res.Notes = append(res.Notes, p.notes...)
	if !p.quick && s.tc == nil && p.cfg.NoPreflight {
		s.tc = fetchTargetConfig(ctx, p.target, p.http)
	}
	recordServer(res, s.tc)
	return nil
}

// distributedSteps are a distributed drive's: the HTTP workload's, measured on load agents.
type distributedSteps struct{ *httpSteps }

// Measure implements SelfMeasurer: the plan runs on the agents, its seconds merged into the
// drive's watchers.
func (s distributedSteps) Measure(ctx context.Context, m *Measurer) (*report.Results, error) {
	p := s.plan
	p.lc.Watchers = m.Watchers(p.sc.Name, p.lc)
	return p.cfg.Distributor.Distribute(ctx, p)
}
