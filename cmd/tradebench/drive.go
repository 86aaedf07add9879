package main

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tradebench/tradebench/bench/smartclient"
	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/driver/load"
	"github.com/tradebench/tradebench/driver/peak"
	"github.com/tradebench/tradebench/driver/scenarios"
	"github.com/tradebench/tradebench/driver/streamload"
	"github.com/tradebench/tradebench/driver/sut"
	"github.com/tradebench/tradebench/internal/cliflag"
	"github.com/tradebench/tradebench/internal/httpc"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/trade/remote"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
)

func init() {
	register(&command{name: "drive", summary: "drive load at a system: a scenario (stocktrader, buysell, daytrader-mix, a file) or one URL", run: runDrive})
}

var driveExamples = helpText("drive-examples.txt")

// driverFlags names the flags that set driver.Config's fields (its capacity search's too),
// fleet.ControllerConfig's and the smart client job's, and the phases' (a drive's errors name
// any of them).
var driverFlags = cliflag.Names{"URL": "url", "Request": "url", "Request.Method": "method", "Request.Headers": "header", "Request.Body": "body", "Request.Data": "data", "Target": "target", "Params": "set", "Scenario": "scenario", "Stream": "stream-subscribers", "Stream.Subscribers": "stream-subscribers", "Stream.URL": "stream-url",
	"Timeout": "timeout", "ConnectTimeout": "connect-timeout", "MaxInFlight": "max-in-flight", "Iterations": "iterations", "Peak": "peak",
	"Peak.Start": "peak-start", "Peak.Max": "peak-max", "Peak.Factor": "peak-factor", "Peak.StepRampUp": "peak-ramp-up", "Peak.StepDuration": "peak-step-duration",
	"Peak.MaxP90": "peak-p90", "Peak.Efficiency": "peak-efficiency", "Peak.MaxErrorRate": "peak-max-error-rate", "Peak.RunSpread": "peak-run-spread",
	"Agents": "agents", "Wait": "agents-wait", "Access": "access", "BSL": "bsl",
	"Redirects": "redirects", "BodyBudget": "body-budget", "MetricsListen": "metrics-listen", "Dashboard": "dashboard", "LiveLinger": "live-linger", "Repeat": "repeat", "Stages": "stages"}.With(phaseNames)

// driveFlags are the flags drive and run share: every load command's (pipelineFlags) and the HTTP
// scenario's. A flag that sets a driver.Config field as it is is bound to the field itself (the
// library fills its defaults and checks it); the others need parsing or stand for something else.
type driveFlags struct {
	pipelineFlags
	keep       cliflag.OptBool
	set        cliflag.KV
	sutMetrics string
	bodyBudget *cliflag.Size
	peak       bool
	pc         peak.Config // the capacity search's, with --peak
	peakStep   float64
	stages     string
}

func (f *driveFlags) register(fs *flag.FlagSet, def driver.Phases) {
	f.set = cliflag.KV{}
	f.pipelineFlags.register(fs, def, "")
	fs.StringVar(&f.cfg.Target, "target", "", "base URL of the system under test, e.g. http://localhost:8080")
	fs.StringVar(&f.cfg.Scenario, "scenario", driver.DefaultScenario, "built-in scenario name or a scenario YAML file")
	fs.IntVar(&f.cfg.MaxInFlight, "max-in-flight", 0, "open model: most iterations at once; arrivals beyond are dropped and counted (0 = "+strconv.Itoa(load.DefaultMaxInFlight)+")")
	fs.StringVar(&f.stages, "stages", "", "closed model: a load profile in stages, DURATION:USERS legs, e.g. 30s:50,1m:200,30s:0 (to 50 users over 30 s, to 200 over 1 m, down to 0 over 30 s); the whole profile is measured; instead of --users, --ramp-up, --duration and --ramp-down")
	fs.IntVar(&f.cfg.Iterations, "iterations", 0, "closed model: stop each user after this many iterations (0 = no limit)")
	fs.Var(&f.keep, "keep-connections", "keep each user's connection and cookies across iterations (default: on in quick mode, off for scenarios — a new visitor per iteration, as the original papers ran)")
	fs.DurationVar(&f.cfg.Timeout, "timeout", driver.DefaultTimeout, "per-request timeout")
	fs.DurationVar(&f.cfg.ConnectTimeout, "connect-timeout", 0, "bound on connecting, TLS handshake included (0 = --timeout)")
	fs.BoolVar(&f.cfg.Insecure, "insecure", false, "do not verify https certificates")
	fs.TextVar(&f.cfg.Redirects, "redirects", httpc.RedirectSameOrigin, "which redirects requests follow: "+strings.Join(httpc.RedirectPolicies, ", ")+" (a hop to another origin carries no body, no cookies and none of your headers; any-with-headers keeps them but Authorization; docs/security.md)")
	f.bodyBudget = cliflag.AddSize(fs, "body-budget", httpc.DefaultBodyBudget, "memory for the response bodies kept for checks and extraction, all users together: a body past it fails its request (bodies nobody checks are never kept)")
	fs.Var(f.set, "set", "scenario parameter name=value, repeatable (e.g. --set users=5000 --set quotes=1000)")
	fs.StringVar(&f.sutMetrics, "sut-metrics", "", "Prometheus endpoints of the system under test's servers, comma-separated (e.g. http://web1:9464/metrics,http://bsl:9464/metrics): scraped each second for every tier's CPU and memory (results: sut). Without it, the process listening on a loopback target's port is found and counted as the system under test")
	fs.Uint64Var(&f.cfg.Seed, "seed", 0, "seed of the virtual users' random draws (accounts, symbols, choices, think times): a run's results record it and the same seed repeats them (0 = random)")
	fs.BoolVar(&f.peak, "peak", false, "capacity search: grow the load (users, or with --rate the arrival rate) geometrically until throughput stops rising or a bound is crossed, bisect to the knee, confirm at the peak")
	fs.Float64Var(&f.pc.Start, "peak-start", peak.DefaultStart, "capacity search: the first step's users (with --rate: the search starts at --rate)")
	fs.Float64Var(&f.pc.Max, "peak-max", peak.DefaultMax, "capacity search: most users (or iterations/s) tried")
	cliflag.Alias(fs, "peak-max", "peak-max-users")
	fs.Float64Var(&f.pc.Factor, "peak-factor", peak.DefaultFactor, "capacity search: load multiplier from one growth step to the next")
	f.pc.StepRampUp = new(peak.DefaultStepRampUp) // 0s is a ramp-up too
	fs.DurationVar(f.pc.StepRampUp, "peak-ramp-up", peak.DefaultStepRampUp, "capacity search: each step's ramp-up")
	fs.DurationVar(&f.pc.StepDuration, "peak-step-duration", peak.DefaultStepDuration, "capacity search: each step's measured time")
	fs.DurationVar(&f.pc.ConfirmDuration, "peak-confirm", peak.DefaultConfirmDuration, "capacity search: the confirming run's measured time at the peak (its ramp-up is "+peak.DefaultConfirmRampUp.String()+")")
	fs.DurationVar(&f.pc.MaxP90, "peak-p90", peak.DefaultMaxP90, "capacity search: latency bound on a step's p90 (0 = none)")
	fs.Float64Var(&f.pc.Efficiency, "peak-efficiency", peak.DefaultEfficiency, "capacity search: a step is past the knee when its throughput per user (per iteration/s) falls below this fraction of the best")
	fs.Float64Var(&f.pc.MaxErrorRate, "peak-max-error-rate", peak.DefaultMaxErrorRate, "capacity search: highest error rate a step may have (fraction)")
	fs.Float64Var(&f.pc.RunSpread, "peak-run-spread", 0, "capacity search: this machine's run-to-run spread of a capacity, a fraction (its standard deviation between runs, as scripts/calibrate measures it); it widens the capacity's ± (0 = assume "+strconv.FormatFloat(report.DefaultRunSpread, 'f', -1, 64)+", the reference machine's, and say so)")
	fs.Float64Var(&f.peakStep, "peak-step", 0, "obsolete: the search grows geometrically (--peak-factor) and bisects")
}

// config turns the flags into a drive configuration; quickURL is quick mode's --url, whose
// defaults differ where the user gave nothing: its users, no ramps, no redirects followed (the
// URL's own answer is measured).
func (f *driveFlags) config(fs *flag.FlagSet, quickURL string) (driver.Config, error) {
	given := cliflag.Given(fs)
	if quickURL != "" && !given["users"] {
		f.phases.p.Users = driver.DefaultQuickUsers
	}
	cfg, err := f.pipelineFlags.config()
	if err != nil {
		return cfg, err
	}
	cfg.URL, cfg.BodyBudget = quickURL, f.bodyBudget.N
	if len(f.set) > 0 {
		cfg.Params = f.set
	}
	if quickURL != "" {
		if given["target"] || given["scenario"] {
			return cfg, cliflag.Errorf("--url (quick mode) drives one URL; drop --target/--scenario")
		}
		cfg.Scenario = ""
		for name, d := range map[string]*time.Duration{"ramp-up": &cfg.RampUp, "ramp-down": &cfg.RampDown} {
			if !given[name] {
				*d = 0
			}
		}
		if !given["redirects"] {
			cfg.Redirects = httpc.RedirectNone
		}
	}
	if given["stages"] {
		if err := f.staged(&cfg, given); err != nil {
			return cfg, err
		}
	}
	if f.keep.IsSet {
		cfg.KeepConnections = &f.keep.V
	}
	if given["peak-step"] {
		return cfg, cliflag.Errorf("--peak-step: the capacity search no longer steps linearly; it grows by --peak-factor and bisects to the knee")
	}
	if f.peak {
		pc := f.pc
		cfg.Peak = &pc
	}
	if cfg.Resources, err = sut.Scrapes(f.sutMetrics); err != nil {
		return cfg, cliflag.Errorf("--sut-metrics: %v", err)
	}
	cfg.SetDefaults() // the search's model and bounds are shown before the run
	if err := cfg.Validate(); err != nil {
		return cfg, driverFlags.UsageError(err)
	}
	return cfg, nil
}

// staged sets cfg's phases to the --stages profile, which replaces the flags of a ramp and a
// steady state (given with it, they are refused rather than silently ignored).
func (f *driveFlags) staged(cfg *driver.Config, given map[string]bool) error {
	for _, name := range []string{"users", "rate", "ramp-up", "duration", "ramp-down", "iterations", "peak", "agents", "repeat"} {
		if given[name] {
			return cliflag.Errorf("--stages is the whole load profile: drop --%s", name)
		}
	}
	st, err := load.ParseStages(f.stages)
	if err != nil {
		return cliflag.Errorf("--stages %q: %v", f.stages, err)
	}
	cfg.Phases = cfg.Phases.Staged(st)
	return nil
}

func runDrive(ctx context.Context, args []string) error {
	fs := cliflag.NewFlagSet("tradebench drive", "--target URL [--scenario NAME|FILE] [flags]  |  tradebench drive --url URL [-c N] [flags]")
	var f driveFlags
	f.register(fs, driver.Phases{Users: driver.DefaultUsers, Duration: driver.DefaultDuration})
	var ff fleetFlags
	ff.register(fs)
	var qf quickFlags
	qf.register(fs)
	var list bool
	fs.BoolVar(&list, "list", false, "list the built-in scenarios and exit")
	versus := fs.String("versus", "", "A/B in one command: B is this drive against a second target, target=URL; --repeat N trials of each (default 5) run interleaved in a random order per pair, then both results and their comparison are written (docs/guide.md \"A/B in one command\")")
	var stream streamload.Config
	addStream(fs, &stream)
	var cj smartclient.Job
	tokenFile := addClientJob(fs, &cj)
	var vf verifyFirst
	vf.register(fs)
	usage := fs.Usage
	fs.Usage = func() { usage(); fmt.Fprintf(fs.Output(), driveExamples, strings.Join(scenarios.Names(), ", ")) }
	if err := cliflag.Parse(fs, args, false); err != nil {
		return err
	}
	if list {
		return listScenarios()
	}
	var err error
	if stream.Subscribers != 0 {
		f.cfg.Stream = &stream
	}
	if f.cfg.Request, err = qf.request(fs); err != nil {
		return err
	}
	f.versus = *versus != ""
	cfg, err := f.config(fs, qf.url)
	if err != nil {
		return err
	}
	var w driver.Workload = driver.HTTP
	if cfg.Scenario == smartclient.Name {
		if cj.Token, _, _, err = svcauth.Resolve(*tokenFile, false); err != nil {
			return cliflag.Errorf("--service-token-file: %v", err)
		}
		cj.Params, w = f.set, &cj
	} else if cfg.URL == "" && cfg.Target == "" {
		return cliflag.Errorf("--target is required (the base URL of the system under test), or --url for quick mode; see --help")
	}
	var versusTarget string
	if *versus != "" {
		if versusTarget, cfg.Repeat, err = driveVersusTarget(*versus, cfg, ff.agents != 0 || w != driver.HTTP, f.repeat, cliflag.Given(fs)["repeat"]); err != nil {
			return err
		}
	}
	dist, closeFleet, err := ff.distributor(fs, cfg)
	if err != nil {
		return err
	}
	defer closeFleet()
	cfg.Distributor = dist
	verified, err := vf.check(ctx, cfg.Target, cfg.Insecure)
	if err != nil {
		return err
	}
	if versusTarget != "" {
		return driveVersus(ctx, &f, &vf, cfg, w, versusTarget)
	}
	res, err := driver.Drive(ctx, cfg, w)
	if res == nil && err != nil {
		return driverFlags.OrUsage(err)
	}
	addVerification(res, verified)
	err = f.finish(res, agentLossHint(err))
	if res != nil && res.Stream != nil {
		fmt.Println(res.Stream.Line())
	}
	return err
}

// driveVersusTarget reads drive's --versus target=URL: the second target, and the repeats that
// become each side's trials.
func driveVersusTarget(versus string, cfg driver.Config, notHTTP bool, repeat int, repeatGiven bool) (string, int, error) {
	_, value, err := parseVersus(versus, []string{"target"})
	if err != nil {
		return "", 0, err
	}
	if cfg.Target == "" || cfg.Stream != nil || notHTTP {
		return "", 0, cliflag.Errorf("--versus target=URL compares two targets driven alike from this machine: give --target, without --url, --agents, --stream-subscribers or --scenario client")
	}
	if u, err := url.Parse(value); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", 0, cliflag.Errorf("--versus target=%s: want the base URL of the second system under test (http:// or https://)", value)
	}
	n, err := versusRepeat(repeat, repeatGiven)
	return value, n, err
}

// driveVersus is drive --versus target=URL: the trials of both targets, driven alike.
func driveVersus(ctx context.Context, f *driveFlags, vf *verifyFirst, cfg driver.Config, w driver.Workload, versusTarget string) error {
	if _, err := vf.check(ctx, versusTarget, cfg.Insecure); err != nil {
		return err
	}
	paths, err := versusFiles(&f.publish, ".")
	if err != nil {
		return err
	}
	targets := [2]string{cfg.Target, versusTarget}
	labels := versusLabels(cfg.Label, "target", targets[0], targets[1])
	return runVersus(ctx, &f.publish, cfg, labels, cfg.Repeat, paths, func(ctx context.Context, k int, c driver.Config) (*report.Results, error) {
		c.Target = targets[k]
		res, err := driver.Drive(ctx, c, w)
		if res == nil && err != nil {
			return nil, driverFlags.OrUsage(err)
		}
		return res, err
	})
}

// addClientJob registers drive's flags for --scenario client (the smart client load: virtual
// users that call the business services directly, screen by screen, through the same pipeline
// as any scenario), bound to j: the transport and the services host, as 'tradebench client'
// takes them. It returns the service token file's path.
func addClientJob(fs *flag.FlagSet, j *smartclient.Job) *string {
	fs.StringVar(&j.Access, "access", remote.REST, "--scenario client: transport to the business services: soap, rest or grpc")
	fs.StringVar(&j.BSL, "bsl", "", "--scenario client: the services host's endpoint for --access (host:port)")
	return fs.String("service-token-file", "", "--scenario client: file holding the deployment's service token; $"+svcauth.EnvToken+" wins")
}

// addStream registers drive's stream subscriber flags, bound to c (0 subscribers: none; the
// checks are the drive's, streamload.Config.Validate).
func addStream(fs *flag.FlagSet, c *streamload.Config) {
	fs.IntVar(&c.Subscribers, "stream-subscribers", 0, "hold this many Server-Sent Events subscribers open during the run and report event delivery latency (publish → receipt) percentiles (0 = none)")
	fs.StringVar(&c.URL, "stream-url", "/trade/stream/quotes", "the stream the subscribers follow: a path under --target or an absolute URL")
	fs.StringVar(&c.TimeField, "stream-time-field", streamload.DefaultTimeField, "the JSON field of an event's data that holds its publish time (RFC 3339)")
}

// listScenarios is drive --list: the built-in scenarios and the smart client's.
func listScenarios() error {
	list, err := driver.Builtins()
	if err != nil {
		return err
	}
	for _, sc := range append(list, driver.ScenarioInfo{Name: smartclient.Name, Description: smartclient.Description}) {
		fmt.Printf("%-14s %s\n", sc.Name, sc.Description)
	}
	return nil
}
