package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/driver/scenario"
	"github.com/tradebench/tradebench/internal/cliflag"
	"github.com/tradebench/tradebench/report"
)

// The flags every load command shares (drive, run, wstest drive, xmlmark run, cacheperf sweep):
// the load shape (driver.Phases), registered here once, and the pipeline's own settings
// (thresholds, run rules, repeats, live views, progress, the results file and its report).
// Each command adds only what its workload needs.

// phaseNames names the flags that set driver.Phases' fields.
var phaseNames = cliflag.Names{"Users": "users", "Rate": "rate", "RampUp": "ramp-up", "Duration": "duration", "RampDown": "ramp-down", "Think": "think", "StartAt": "start-at"}

// phaseFlags are the load shape's flags: bound to a driver.Phases that starts from the
// command's defaults.
type phaseFlags struct {
	fs *flag.FlagSet
	p  driver.Phases
}

// addPhases registers the load shape's flags on fs with the command's defaults def, and the
// earlier names as hidden aliases (-c, --threads; -d, --steady; --rampup, --warmup; --rampdown).
func addPhases(fs *flag.FlagSet, def driver.Phases) *phaseFlags {
	f := &phaseFlags{fs: fs, p: def}
	fs.IntVar(&f.p.Users, "users", def.Users, "virtual users, closed model (-c)")
	fs.Float64Var(&f.p.Rate, "rate", def.Rate, "open model: iterations started per second (instead of --users)")
	fs.DurationVar(&f.p.RampUp, "ramp-up", def.RampUp, "users start evenly over this time before the measured steady state (not measured)")
	fs.DurationVar(&f.p.Duration, "duration", def.Duration, "the measured steady state (-d)")
	fs.DurationVar(&f.p.RampDown, "ramp-down", def.RampDown, "users stop over this time after the steady state (not measured)")
	fs.TextVar(&f.p.StartAt, "start-at", def.StartAt, "begin the ramp-up at this instant, RFC 3339 (e.g. 2026-11-27T14:00:00Z), so drivers on several machines start together (default: at once)")
	fs.Var(scenario.ThinkValue{T: &f.p.Think}, "think", "think time after each transaction: 1s (randomized around 1 s: uniform 0.5–1.5 s, as LoadRunner), fixed:1s (exactly), 0.5s..1.5s (uniform), exp:1s (negative-exponential), 0 (default: the workload's own)")
	if def.StartAt.IsZero() {
		fs.Lookup("start-at").DefValue = "" // the usage says it: "(default: at once)", not the zero instant too
	}
	cliflag.Alias(fs, "users", "c", "threads")
	cliflag.Alias(fs, "duration", "d", "steady")
	cliflag.Alias(fs, "ramp-up", "rampup", "warmup")
	cliflag.Alias(fs, "ramp-down", "rampdown")
	return f
}

// phases is the load shape the flags give, defaults included.
func (f *phaseFlags) phases() (driver.Phases, error) {
	given := cliflag.Given(f.fs)
	if f.p.Rate > 0 && given["users"] {
		return f.p, cliflag.Errorf("give --users (closed model) or --rate (open model), not both")
	}
	p := f.p
	if !given["ramp-up"] && p.Rate == 0 {
		// users started all at once measure their own login storm: the default ramp-up grows
		// with them (quick mode, like wrk, starts at once unless --ramp-up is given)
		p.RampUp = driver.DefaultRampUp(p.Users, p.RampUp)
	}
	return p, nil
}

// over sets in dst the phases given on the command line: they override a configuration file's.
func (f *phaseFlags) over(dst *driver.Phases) {
	given := cliflag.Given(f.fs)
	for name, set := range map[string]func(){
		"users": func() { dst.Users = f.p.Users }, "rate": func() { dst.Rate = f.p.Rate }, "ramp-up": func() { dst.RampUp = f.p.RampUp },
		"duration": func() { dst.Duration = f.p.Duration }, "ramp-down": func() { dst.RampDown = f.p.RampDown }, "think": func() { dst.Think = f.p.Think },
		"start-at": func() { dst.StartAt = f.p.StartAt },
	} {
		if given[name] {
			set()
		}
	}
}

// pipelineFlags are the flags of every load command: the phases and the pipeline's settings.
// A flag that sets a driver.Config field as it is is bound to cfg's (drive's own too: the
// library fills its defaults and checks it); the others need reading or parsing.
type pipelineFlags struct {
	phases                        *phaseFlags
	cfg                           driver.Config
	out                           string
	repeat                        int
	progress                      *cliflag.Progress
	publish                       publishFlags
	rules                         rulesFlags
	limits                        report.Limits
	liveTokenFile, liveAllowHosts string
	force                         bool
	// versus: the results go to --out's -A.json, -B.json and -compare.html (versusFiles checks
	// those), never to --out itself, which may exist.
	versus bool
}

// thresholdFlags names the flags that set report.Limits' fields.
var thresholdFlags = cliflag.Names{"MaxErrorRate": "max-error-rate", "MaxP90": "max-p90", "MaxP99": "max-p99", "MinTPS": "min-tps"}

func (f *pipelineFlags) register(fs *flag.FlagSet, def driver.Phases, defOut string) {
	f.phases = addPhases(fs, def)
	fs.StringVar(&f.out, "out", defOut, "write the results JSON to this file, and its HTML report beside it (X.json → X.html); an existing file is not overwritten without --force")
	fs.BoolVar(&f.force, "force", false, "overwrite an existing --out file and its HTML report")
	addLabel(fs, &f.cfg.Label)
	fs.IntVar(&f.repeat, "repeat", 1, "run the same measurement this many times (fresh data between runs for 'run'): the results keep every run, the summary shows each metric's median, 95% interval and range, and 'report compare' tests differences across runs (5 or more a side to detect one)")
	f.progress = cliflag.AddProgress(fs)
	f.publish.register(fs)
	f.rules.register(fs)
	fs.Func("max-error-rate", "threshold: most failed transactions, a fraction or percent (0.0001 or 0.01%)", func(s string) error {
		v, err := cliflag.ParseFraction(s, 1)
		f.limits.MaxErrorRate = &v
		return err
	})
	fs.DurationVar(&f.limits.MaxP90, "max-p90", 0, "threshold: 90th percentile latency over all transactions")
	fs.DurationVar(&f.limits.MaxP99, "max-p99", 0, "threshold: 99th percentile latency over all transactions")
	fs.Float64Var(&f.limits.MinTPS, "min-tps", 0, "threshold: fewest passed transactions per second")
	fs.StringVar(&f.cfg.MetricsListen, "metrics-listen", "", "serve the run's live metrics for Prometheus at http://ADDR/metrics while it runs (e.g. 127.0.0.1:9465; the address is the access control: bind it where only your monitoring can reach it); with --agents, the fleet's merged seconds")
	fs.StringVar(&f.cfg.Dashboard, "dashboard", "", "serve the live dashboard at http://ADDR/ while the run goes on (e.g. 127.0.0.1:9466): the HTML report drawing itself each second, then the final report; the address is the access control")
	fs.StringVar(&f.liveTokenFile, "live-token-file", "", "require the token in this file (yours alone, mode 600) of every request to --metrics-listen and --dashboard: open the dashboard as http://ADDR/?token=TOKEN, scrape with Authorization: Bearer TOKEN")
	fs.StringVar(&f.liveAllowHosts, "live-allow-host", "", "host names --metrics-listen and --dashboard answer to besides loopback names and their own address, comma-separated (e.g. the name Prometheus scrapes the driver by; a DNS-rebinding page is refused by this Host check)")
	fs.StringVar(&f.cfg.FaultsFile, "faults", "", "a file of faults injected during the run, one JSON line each ({\"name\":…,\"start\":RFC 3339,\"end\":RFC 3339}, as 'scripts/testbed crash' writes): read after the run, each fault's window and errors go into the results, the verdict and the report, and errors inside the windows are judged apart (docs/testbed.md)")
	fs.DurationVar(&f.cfg.LiveLinger, "live-linger", 0, "keep --metrics-listen and --dashboard serving this long after the run (a last scrape, the final report in an open page)")
}

// config is the drive the flags give: the phases and the pipeline's settings, checked, with the
// results file's directory and the price list checked before any load.
func (f *pipelineFlags) config() (driver.Config, error) {
	cfg := f.cfg
	var err error
	if cfg.Phases, err = f.phases.phases(); err != nil {
		return cfg, err
	}
	cfg.Repeat, cfg.OnLive = f.repeat, printLive
	if f.liveTokenFile != "" {
		if cfg.LiveToken, err = driver.ReadLiveToken(f.liveTokenFile); err != nil {
			return cfg, cliflag.Errorf("--live-token-file: %v", err)
		}
	}
	cfg.LiveAllowHosts = cliflag.SplitList(f.liveAllowHosts)
	cfg.Progress, cfg.ProgressTTY = f.progress.Writer()
	if cfg.Thresholds, err = f.limits.Thresholds(); err != nil {
		return cfg, thresholdFlags.UsageError(err)
	}
	if cfg.Rules, err = f.rules.config(); err != nil {
		return cfg, err
	}
	if f.out == "-" {
		// the summary is standard output's; a results file named "-" (and "-.html") helps nobody
		return cfg, cliflag.Errorf("--out -: the results go to a file (the summary is what standard output gets); give a file name, e.g. --out results.json")
	}
	f.publish.Out, f.publish.Force = f.out, f.force
	if f.versus {
		p := f.publish
		p.Out = "" // the directory and the price list are still checked here
		return cfg, p.check()
	}
	return cfg, f.publish.check()
}

// printLive tells the user where the run's live views are.
func printLive(metricsURL, dashboardURL string) {
	if metricsURL != "" {
		fmt.Fprintf(os.Stderr, "live metrics at %s\n", metricsURL)
	}
	if dashboardURL != "" {
		fmt.Fprintf(os.Stderr, "live dashboard at %s\n", dashboardURL)
	}
}

// finish is every load command's end: it publishes the results once (report/publish: priced
// with --pricing, the summary, --out and the HTML report beside it) and passes on the run's
// error (its exit status; an interrupted run's results are written all the same).
func (f *pipelineFlags) finish(res *report.Results, runErr error) error {
	return errors.Join(runErr, f.publish.write(res))
}
