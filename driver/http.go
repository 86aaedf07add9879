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
func (httpWorkload) Prepare(ctx context.Context, cfg *Config) (*Prepared, error) {
	p, err := Prepare(*cfg)
	if err != nil {
		return nil, err
	}
	*cfg = p.cfg
	var tc *targetConfig
	run := &Prepared{Name: p.sc.Name, Target: p.target, Users: p.w}
	if p.quick {
		run.Target = cfg.URL
	}
	run.Preflight = func(ctx context.Context) error {
		if !p.quick && !cfg.NoPreflight {
			tc = fetchTargetConfig(ctx, p.target, p.http)
		}
		// a tradebench target says what data set it holds: size the scenario to it
		params, changed, err := sizeFromTarget(cfg.Params, func(name string) bool { _, ok := p.sc.Param(name); return ok }, tc)
		if err != nil {
			return err
		}
		if changed {
			c := *cfg
			c.Params = params
			if p, err = Prepare(c); err != nil {
				return err
			}
			*cfg = p.cfg
			run.Users = p.w
			run.Notes = append(run.Notes, fmt.Sprintf("scenario sized to the target's data set (/trade/config.json): users=%s, quotes=%s", params["users"], params["quotes"]))
		}
		if !cfg.NoPreflight {
			return p.Preflight(ctx)
		}
		return nil
	}
	run.Describe = func(ctx context.Context, res *report.Results) error {
		p.describe(res)
		orderTransactions(res, p.sc.TransactionNames())
		if res.Disclosure == nil { // the live dashboard's first frame
			return nil
		}
		res.Notes = append(res.Notes, p.notes...)
		if !p.quick && tc == nil && cfg.NoPreflight {
			tc = fetchTargetConfig(ctx, p.target, p.http)
		}
		recordServer(res, tc)
		return nil
	}
	if cfg.Distributor != nil {
		run.Measure = func(ctx context.Context, m *Measurer) (*report.Results, error) {
			p.lc.Watchers = m.Watchers(p.sc.Name, p.lc)
			return cfg.Distributor.Distribute(ctx, p)
		}
	}
	return run, nil
}
