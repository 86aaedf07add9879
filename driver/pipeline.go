package driver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/tradebench/tradebench/driver/disclose"
	"github.com/tradebench/tradebench/driver/live"
	"github.com/tradebench/tradebench/driver/load"
	"github.com/tradebench/tradebench/driver/peak"
	"github.com/tradebench/tradebench/driver/progress"
	"github.com/tradebench/tradebench/driver/streamload"
	"github.com/tradebench/tradebench/driver/sut"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/report"
)

// This file is the one place a run is put together. Every job — the HTTP scenarios (drive,
// run), WSTest, XML Mark, the CachePerf sweep, the smart client — is a Workload handed to Drive,
// which does, once for all of them: the checks of the configuration, the repeats, the
// workload's preflight, the live views and the progress line (watchers of the engine's
// seconds), the capacity search, the disclosure, the interruption and the verdict. A job only
// says what its virtual users do and what its results add.

// Workload is a job's load, run by Drive.
type Workload interface {
	// Prepare readies one run under cfg (checked, its defaults filled) without sending anything
	// to the system under test. It may adjust cfg (the run id, a bound lowered to fit). Drive
	// calls it once per run, every repeat included.
	Prepare(ctx context.Context, cfg *Config) (*Run, error)
}

// Run is one run of a workload as its Prepare made it: plain values Drive reads, and the
// workload's own steps.
type Run struct {
	// Name labels the progress line (e.g. the scenario's name).
	Name string
	// Target is where the load goes, for the driver_cpu run rule: a target served by this very
	// process shares the driver's CPU; "" says the system under test runs in this process.
	Target string
	// Users are the virtual users the engine runs under the drive's phases (none when the
	// steps are a SelfMeasurer).
	Users load.Workload
	// Notes are added to the results (what Prepare or the preflight decided for the user).
	Notes []string
	// Steps are the workload's own part of the run (nil: nothing beyond its users).
	Steps Steps
}

// Steps are what a workload adds to its run. Describe is the one every workload has; a Steps
// value may also be a Preflighter, a SelfMeasurer or an io.Closer, each found by a type
// assertion as io.Copy finds an io.ReaderFrom, so a workload implements only what it needs.
type Steps interface {
	// Describe fills the workload's own part of the results (workload, scenario, target,
	// settings, detail, notes) after the engine's and the disclosure's. It also describes the
	// live dashboard's first frame, before the run (res.Disclosure is nil then).
	Describe(ctx context.Context, res *report.Results) error
}

// Preflighter is Steps that try what they drive once, after the live views open and before any
// load: a target that cannot be driven is refused (e.g. with a *PreflightError). Preflight may
// adjust the run it is given and its configuration (a scenario sized to its target's data set:
// other users, another note); Drive runs what they say afterwards.
type Preflighter interface {
	Preflight(ctx context.Context, cfg *Config, run *Run) error
}

// SelfMeasurer is Steps that measure instead of one run of the users under the phases: a sweep
// of several measured points (each through m.Measure, judged like any run) or a distributed run.
type SelfMeasurer interface {
	Measure(ctx context.Context, m *Measurer) (*report.Results, error)
}

// describe is run's Describe, when it has steps.
func (r *Run) describe(ctx context.Context, res *report.Results) error {
	if r.Steps == nil {
		return nil
	}
	return r.Steps.Describe(ctx, res)
}

// selfMeasurer is run's steps as a SelfMeasurer (nil when the run is one run of its users).
func (r *Run) selfMeasurer() SelfMeasurer {
	sm, _ := r.Steps.(SelfMeasurer)
	return sm
}

// close releases what Prepare opened (the steps' io.Closer), after the results are described; a
// failure to release is no failure of the measurement, which is over.
func (r *Run) close() {
	if c, ok := r.Steps.(io.Closer); ok {
		_ = c.Close()
	}
}

// InterruptedError is a run stopped before its end (Ctrl-C, SIGTERM): its results, when it
// returns any, hold what was measured until then under the verdict "interrupted".
type InterruptedError struct{ Err error }

func (e *InterruptedError) Error() string { return "interrupted; partial results kept" }
func (e *InterruptedError) Unwrap() error { return e.Err }

// Drive runs w under cfg and returns its results, every one with a verdict under the run rules.
// A run that completes but misses a threshold returns the results and a
// *report.ThresholdsFailed; an invalid one a *report.InvalidError; a distributed run that lost an
// agent the merged results of the rest and an *AgentsLostError (unless the distributor was told
// to allow it); an interrupted one what was measured (verdict "interrupted") and an
// *InterruptedError. The types let a caller tell these apart (the command line maps them to its
// exit statuses); reasons that hold together are joined.
func Drive(ctx context.Context, cfg Config, w Workload) (*report.Results, error) {
	cfg.SetDefaults() // the one place a drive's defaults are filled, the capacity search's with them
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Repeat > 1 {
		return driveRepeated(ctx, cfg, w)
	}
	return driveOnce(ctx, cfg, w)
}

// rules are the run rules cfg's results are judged by.
func (c Config) rules() report.Rules {
	if c.Rules != nil {
		return *c.Rules
	}
	return report.DefaultRules()
}

// driveOnce is one run of w: prepare, open the live views, preflight, measure, describe, judge.
func driveOnce(ctx context.Context, cfg Config, w Workload) (*report.Results, error) {
	p, err := w.Prepare(ctx, &cfg)
	if err != nil {
		return nil, err
	}
	defer p.close()
	self := p.selfMeasurer()
	if self != nil && cfg.Peak != nil {
		return nil, setting.Errorf("Peak", "a capacity search steps one load; this run measures several (a sweep, or agents)")
	}
	if cfg.Stream != nil && cfg.Peak != nil {
		return nil, setting.Errorf("Stream", "stream subscribers measure one run; they cannot run through a peak search")
	}
	// the live views first: a setting they refuse (a busy address) sends nothing to the target
	sess, err := startLive(ctx, cfg, p)
	if err != nil {
		return nil, err
	}
	if sess != nil {
		defer sess.Close(ctx)
	}
	if pf, ok := p.Steps.(Preflighter); ok {
		if err := pf.Preflight(ctx, &cfg, p); err != nil {
			return nil, interrupted(ctx, err)
		}
	}
	sutNotFound := sutByPort(&cfg, p.Target)
	m := &Measurer{cfg: cfg, sess: sess, target: p.Target}
	res, err := m.measure(ctx, p)
	if res == nil {
		return nil, interrupted(ctx, err)
	}
	complete(res)
	if res.Machine != nil {
		res.Machine.SUTNotFound = sutNotFound
	}
	if derr := p.describe(ctx, res); derr != nil {
		err = errors.Join(err, derr)
	}
	res.Label = cfg.Label
	res.Notes = append(res.Notes, p.Notes...)
	if cfg.FaultsFile != "" {
		if ferr := res.AddFaultsFile(cfg.FaultsFile); ferr != nil {
			res.Notes = append(res.Notes, "faults not recorded: "+ferr.Error())
		}
	}
	if sess != nil {
		if ferr := sess.Finish(res); ferr != nil {
			res.Notes = append(res.Notes, "live dashboard: "+ferr.Error())
		}
	}
	if ctx.Err() != nil {
		markInterrupted(res, cfg.rules())
		return res, &InterruptedError{Err: ctx.Err()}
	}
	var lost *AgentsLostError
	if errors.As(err, &lost) {
		err = nil
	}
	if err != nil {
		return res, err
	}
	var verr error
	if self != nil && res.Validity != nil {
		// a workload that measured several points judged each and gave the verdict of them all
		verr = res.Validity.Err()
	} else {
		verr = Judge(res, cfg.rules(), p.Target)
	}
	if len(cfg.Thresholds) > 0 {
		if terr := res.CheckThresholds(cfg.Thresholds); terr != nil && lost == nil {
			// both reasons are returned: the command's exit-code table says which one wins
			return res, errors.Join(terr, verr)
		}
	}
	if lost != nil {
		return res, errors.Join(lost, verr)
	}
	return res, verr
}

// interrupted is err as an *InterruptedError when ctx ended (the user stopped the run).
func interrupted(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return &InterruptedError{Err: err}
	}
	return err
}

// markInterrupted gives an interrupted run's results the verdict "interrupted": the rules are
// evaluated on what was measured, for the reader, but no run cut short is valid.
func markInterrupted(res *report.Results, rules report.Rules) {
	v := report.Evaluate(res, rules)
	end := res.EndedAt.Sub(res.StartedAt).Seconds()
	if res.Peak != nil {
		// an interrupted search's results are its last finished step's: the search's own time is
		// how long the run went on
		end = max(end, res.Peak.Seconds)
		if !strings.HasPrefix(res.Peak.StopWhy, peak.Interrupted) {
			res.Peak.StopWhy = peak.Interrupted
		}
	}
	v.MarkInterrupted(fmt.Sprintf("the run was stopped after %.0f s, before its end: the results hold what was measured until then", end))
	res.Validity = v
}

// complete fills what every result carries whatever measured it: the disclosure (the one place
// disclose.Fill is called) and the measuring machine.
func complete(res *report.Results) {
	disclose.Fill(res)
	if res.System == nil && len(res.Agents) == 0 {
		res.System = load.System()
	}
}

// startLive opens the run's live views, if any, with the workload described as their first frame.
func startLive(ctx context.Context, cfg Config, p *Run) (*live.Session, error) {
	opt := live.Options{MetricsListen: cfg.MetricsListen, Dashboard: cfg.Dashboard, Linger: cfg.LiveLinger,
		Thresholds: cfg.Thresholds, Log: cfg.LiveLog, Token: cfg.LiveToken, AllowHosts: cfg.LiveAllowHosts}
	if !opt.Enabled() {
		return nil, nil
	}
	base := report.New("")
	cfg.Load().Describe(base)
	_ = p.describe(ctx, base) // what the first frame lacks, the final report has
	base.StartedAt = time.Now().UTC()
	sess, err := live.Start(ctx, opt, base)
	if err != nil {
		return nil, err
	}
	if cfg.OnLive != nil {
		cfg.OnLive(sess.MetricsURL(), sess.DashboardURL())
	}
	return sess, nil
}

// Measurer runs the measurements of one drive: one load run, a capacity search's steps, or a
// workload's own points (a SelfMeasurer), each with the drive's watchers.
type Measurer struct {
	cfg    Config
	sess   *live.Session
	target string
}

// Phases is the load shape of the drive being measured.
func (m *Measurer) Phases() Phases { return m.cfg.Phases }

// Watchers are the drive's watchers for a run labelled label of the given engine configuration:
// the caller's, the progress line, the live views.
func (m *Measurer) Watchers(label string, lc load.Config) []load.Watcher {
	ws := slices.Clone(m.cfg.Watchers)
	if m.cfg.Progress != nil {
		ws = append(ws, &progress.Line{W: m.cfg.Progress, TTY: m.cfg.ProgressTTY, Label: label,
			Total: lc.RampUp + lc.Steady + lc.RampDown, Open: lc.Open()})
	}
	if m.sess != nil {
		ws = append(ws, load.WithTx(m.sess))
	}
	return ws
}

// Run runs users once under lc (the drive's, or a search step's), labelled label on the
// progress line, with the drive's watchers.
func (m *Measurer) Run(ctx context.Context, label string, lc load.Config, users load.Workload) (*report.Results, error) {
	lc.Watchers = m.Watchers(label, lc)
	return load.Run(ctx, lc, users)
}

// Measure runs users once under the drive's phases, labelled label, and judges the results by
// the drive's run rules (each point of a sweep carries its own verdict); an invalid point is a
// result, not an error: its verdict says so.
func (m *Measurer) Measure(ctx context.Context, label string, users load.Workload) (*report.Results, error) {
	lc := m.cfg.Load()
	lc.Resources = nil // a workload measuring itself: the drive watches the resources around it
	res, err := m.Run(ctx, label, lc, users)
	if res == nil {
		return nil, err
	}
	complete(res)
	if ctx.Err() != nil {
		markInterrupted(res, m.cfg.rules())
		return res, err
	}
	Judge(res, m.cfg.rules(), m.target)
	return res, err
}

// measure runs the prepared workload: its own measurement, a capacity search, or one run,
// under the stream subscribers when there are any.
func (m *Measurer) measure(ctx context.Context, p *Run) (*report.Results, error) {
	cfg := m.cfg
	self := p.selfMeasurer()
	switch {
	case self != nil:
		// the workload measures itself; the drive watches the system under test's resources
		var mon *sut.Monitor
		if len(cfg.Resources) > 0 {
			mon = sut.Start(ctx, time.Now(), cfg.Resources...)
		}
		if m.sess != nil {
			m.sess.Resources = mon // its seconds carry no resources: the dashboard reads them here
		}
		res, err := streamload.Measure(ctx, cfg.Stream, cfg.RampUp, cfg.Duration, func() (*report.Results, error) { return self.Measure(ctx, m) })
		if mon != nil {
			s, serr := mon.Stop()
			if res != nil {
				res.SUT = s
				if serr != nil {
					res.Notes = append(res.Notes, serr.Error())
				}
			}
		}
		return res, err
	case cfg.Peak != nil:
		return m.peak(ctx, *cfg.Peak, p)
	}
	return streamload.Measure(ctx, cfg.Stream, cfg.RampUp, cfg.Duration, func() (*report.Results, error) {
		return m.Run(ctx, p.Name, cfg.Load(), p.Users)
	})
}

// peak runs a capacity search (package peak): each step is one load run at the step's users or
// rate, with the step's own ramp-up and measured window and no ramp-down. Interrupted, it
// returns the last finished step's results with the search so far (its steps), so what was
// measured is kept.
func (m *Measurer) peak(ctx context.Context, pc peak.Config, p *Run) (*report.Results, error) {
	var last *report.Results // the last step that ran to its end
	ps, best, err := peak.Search(ctx, pc, func(ctx context.Context, s peak.Step) (*report.Results, error) {
		c := m.cfg.Load()
		c.Users, c.Rate = s.Users, s.Rate
		c.RampUp, c.Steady, c.RampDown = s.RampUp, s.Duration, 0
		what := fmt.Sprintf("%d users", s.Users)
		if pc.Open {
			what = fmt.Sprintf("%g/s", s.Rate)
		}
		label := fmt.Sprintf("%s %s %d (%s)", p.Name, s.Phase, s.N, what)
		if s.Of > 0 {
			label = fmt.Sprintf("%s %d: re-measure step %d (%s)", p.Name, s.N, s.Of, what)
		}
		res, err := m.Run(ctx, label, c, p.Users)
		if err == nil && res != nil {
			last = res
		}
		return res, err
	})
	if best == nil && ctx.Err() != nil && last != nil && ps != nil {
		last.Peak = ps
		last.Notes = append(last.Notes, fmt.Sprintf("capacity search interrupted after %d steps: the transactions above are the last finished step's", len(ps.Steps)))
		return last, err
	}
	if best == nil {
		if err == nil {
			err = fmt.Errorf("peak search found no step within its bounds: %s", ps.StopWhy)
		}
		return nil, err
	}
	best.Settings.Peak = &report.PeakSettings{StepDuration: pc.StepDuration.String(), Start: int(pc.Start), MaxUsers: int(pc.Max)}
	if pc.MaxP90 > 0 {
		best.Settings.Peak.MaxP90 = pc.MaxP90.String()
	}
	at := fmt.Sprintf("%d users", ps.PeakUsers)
	if pc.Open {
		at = fmt.Sprintf("%g iterations/s", ps.PeakRate)
	}
	best.Notes = append(best.Notes, fmt.Sprintf("capacity search: %d steps in %.0fs; the transactions above are the confirming run at the peak, %s", len(ps.Steps), ps.Seconds, at))
	return best, err
}
