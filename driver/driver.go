// Package driver is the load driver's front door: it turns a drive configuration — a scenario
// (built-in or file) or a single URL, the load model, phases, thresholds, an optional peak
// search — into a run of the load engine and returns the results with the run's settings and
// thresholds filled in. cmd/tradebench's drive and run commands are thin wrappers around Drive.
package driver

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tradebench/tradebench/driver/disclose"
	"github.com/tradebench/tradebench/driver/load"
	"github.com/tradebench/tradebench/driver/peak"
	"github.com/tradebench/tradebench/driver/scenario"
	"github.com/tradebench/tradebench/driver/scenarios"
	"github.com/tradebench/tradebench/driver/streamload"
	"github.com/tradebench/tradebench/driver/sut"
	"github.com/tradebench/tradebench/driver/vuser"
	"github.com/tradebench/tradebench/internal/dsn"
	"github.com/tradebench/tradebench/internal/httpc"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/internal/suggest"
	"github.com/tradebench/tradebench/internal/untrusted"
	"github.com/tradebench/tradebench/report"
)

// Config is one drive. It is also what a distributed run's controller sends each agent as its
// share (package fleet's Share): the fields with a JSON name travel, so a setting added here
// reaches the agents with no copy to update; the fields marked json:"-" stay with the
// controller (where progress goes, the thresholds it checks on the merged results, the
// resources it samples).
//
// A zero field takes its default (SetDefaults, the one place defaults are filled) and Validate
// checks the rest, naming the field in a *setting.Error; NewPlan does both.
type Config struct {
	// Target is the system under test's base URL (scheme://host:port) for scenario paths.
	Target string `json:"target,omitempty"`
	// Scenario is a built-in scenario's name or a scenario file's path ("" = DefaultScenario,
	// except in quick mode).
	Scenario string `json:"scenario,omitempty"`
	// ScenarioData, if not nil, is the scenario file's content (Scenario then only names it): an
	// agent runs the file its controller sent.
	ScenarioData []byte `json:"scenario_data,omitempty"`
	// URL selects quick mode: every iteration is one GET of this URL (templates allowed, e.g.
	// s:{0..1000}). Target and Scenario must then be empty.
	URL string `json:"url,omitempty"`
	// Request is quick mode's request beyond its URL: method, headers, body (nil: a GET).
	Request *QuickRequest `json:"request,omitempty"`
	// Params override scenario parameters.
	Params map[string]string `json:"params,omitempty"`

	// Phases is the load shape: users or rate, ramp-up, the measured Duration, ramp-down and
	// the think time (which replaces the scenario's; quick mode has none).
	Phases
	// MaxInFlight caps the open model's concurrent iterations (0 = load.DefaultMaxInFlight,
	// lowered to fit the scenario's unique ranges).
	MaxInFlight int `json:"max_in_flight,omitempty"`
	// Iterations, if > 0, stops each closed-model user after that many (0 = until the end).
	Iterations int `json:"iterations,omitempty"`

	// KeepConnections keeps connections and cookies across iterations (nil: the default — fresh
	// per iteration for scenarios, as the original papers' runs did; kept in quick mode, as wrk does).
	KeepConnections *bool `json:"keep_connections,omitempty"`
	// Timeout bounds each request (0 = DefaultTimeout).
	Timeout time.Duration `json:"timeout,omitempty"`
	// ConnectTimeout bounds connecting, TLS handshake included (0 = Timeout): a short one tells
	// a target that stopped accepting from one that answers slowly.
	ConnectTimeout time.Duration `json:"connect_timeout,omitempty"`
	Insecure       bool          `json:"insecure,omitempty"` // skip TLS certificate verification
	// Redirects is which redirects a scenario's requests follow: the target's own origin only
	// (the zero value), none, or any origin (a hop to another carries no body, no cookies and
	// none of the user's headers; any-with-headers keeps them but the credentials). A target
	// must not be able to aim the load, or a secret header, at another host.
	Redirects httpc.RedirectPolicy `json:"redirects,omitempty"`
	// BodyBudget bounds the memory of the response bodies the users keep for checks and
	// extraction, all users together, in bytes (0 = httpc.DefaultBodyBudget): a body past it
	// fails its request instead of growing the driver.
	BodyBudget int64 `json:"body_budget,omitempty"`

	// RunID makes registered user ids unique across runs ("" = generated).
	RunID string `json:"run_id"`
	// Seed seeds the virtual users' random draws: the same seed gives each user the same
	// sequence of values, choices and think times (0 = a random seed; the results record it).
	Seed uint64 `json:"seed"`
	// Slice gives this driver its own part of every unique range ({unique A..B}) when several
	// drivers run the same scenario against one system: agent k of K runs with Slice{k, K} and
	// no two agents' users ever hold the same value. The zero value uses the whole range.
	Slice scenario.Slice `json:"slice"`

	// Progress receives the run's live progress line (nil: none) and the pipeline's own lines
	// ("run 2 of 5"); ProgressTTY redraws the line in place.
	Progress    io.Writer `json:"-"`
	ProgressTTY bool      `json:"-"`
	// Watchers are given every closed second of the run besides the progress line and the live
	// views Drive composes itself (load.Config.Watchers' contract: one goroutine, in order,
	// return quickly) — a local run's seconds, or a distributed run's merged over its agents.
	Watchers []load.Watcher `json:"-"`

	Thresholds []report.Threshold `json:"-"`
	// Peak, if set, runs a capacity search instead of one run: of the users (the closed model),
	// or with a Rate of the arrival rate, starting at Rate (SetDefaults makes it Open).
	Peak *peak.Config `json:"-"`
	// Resources are the system under test's processes whose CPU and memory are sampled each
	// second into the results' sut section (sut.Self for an in-process server, sut.NewScrape
	// for a server's Prometheus endpoint).
	Resources []sut.Source `json:"-"`
	// Distributor, if set, runs the drive on load agents and merges their results.
	Distributor Distributor `json:"-"`
	// Stream, if set, holds stream subscribers open during the run and records event delivery
	// latency in the results (extra.stream); not with a peak search.
	Stream *streamload.Config `json:"-"`

	// Rules are the bounds of the run rules the results are judged by (results.validity; nil =
	// report.DefaultRules()). An invalid run returns a *report.InvalidError after its results.
	Rules *report.Rules `json:"-"`
	// NoPreflight sends nothing to the target before the load: neither the scenario's first
	// request tried once (a target that fails it is refused with a *PreflightError) nor the
	// read of its data set (/trade/config.json) that sizes the scenario. For tests that drive a
	// failing target on purpose or count its requests.
	NoPreflight bool `json:"-"`
	// Repeat runs the same measurement this many times, one after the other (0 or 1: once), so
	// that a comparison can tell a change from run-to-run noise: the results keep every run's
	// headline numbers (Results.Repeats) and otherwise are the last run's. With Peak, each run is
	// a whole capacity search and keeps its capacity (a capacity's variance lives between
	// searches: Kalibera & Jones). The controller repeats a distributed drive; each agent's
	// share is one run.
	Repeat int `json:"-"`
	// BetweenRepeats, if set, runs before every repeat but the first: a job resets its data so
	// that each run starts from the same state.
	BetweenRepeats func(ctx context.Context, run int) error `json:"-"`
	// Label names the run in the summary, the report and comparisons ("" = the workload and its
	// key settings; see report.Results.Name).
	Label string `json:"-"`

	// MetricsListen, if set (host:port), serves the run's live metrics for Prometheus at
	// http://MetricsListen/metrics while it runs (package live): transactions, latency, users,
	// arrivals, bytes, the phase and the verdict so far. The address is the access control, as
	// for the servers' endpoints: 127.0.0.1 keeps it on the machine. A distributed run's
	// controller serves the fleet's merged seconds.
	MetricsListen string `json:"-"`
	// Dashboard, if set (host:port), serves the live dashboard at http://Dashboard/: the HTML
	// report drawing itself each second, then the final report. The address is its access
	// control too.
	Dashboard string `json:"-"`
	// LiveLinger keeps the live metrics and dashboard serving this long after the run, so a
	// scraper takes the final numbers and an open dashboard its final report (0: they close with
	// the run; at most MaxLiveLinger).
	LiveLinger time.Duration `json:"-"`
	// LiveToken, if set, is required of every request to the live metrics and dashboard
	// (?token=TOKEN in the dashboard's URL; Authorization: Bearer TOKEN for a scraper).
	LiveToken string `json:"-"`
	// LiveAllowHosts are host names the live views answer to besides loopback names and their
	// own address (the Host check keeps a DNS-rebinding page out).
	LiveAllowHosts []string `json:"-"`
	// FaultsFile, if set, is read after the run: the faults injected during it (one JSON line
	// each, as scripts/testbed crash writes them; report.ReadFaults), whose windows and errors
	// the results, the verdict and the report show (report.Results.Faults).
	FaultsFile string `json:"-"`
	// LiveLog receives the live listeners' own errors (nil: slog.Default()).
	LiveLog *slog.Logger `json:"-"`
	// OnLive, if set, is told the live views' URLs once they listen (before the run starts).
	OnLive func(metricsURL, dashboardURL string) `json:"-"`
}

// SetDefaults fills the zero fields that have a default, as nats-server's setBaselineOptions
// does: the one place a drive's defaults are applied (the command line starts from the same
// constants).
func (c *Config) SetDefaults() {
	if c.Scenario == "" && c.URL == "" {
		c.Scenario = DefaultScenario
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.ConnectTimeout == 0 {
		c.ConnectTimeout = c.Timeout
	}
	if c.Peak != nil {
		pc := *c.Peak   // the caller's stays as given
		if c.Rate > 0 { // an open-model search: the arrival rate grows, from the drive's Rate
			pc.Open, pc.Start = true, c.Rate
		}
		pc.SetDefaults()
		c.Peak = &pc
	}
	if c.Stream != nil {
		s := *c.Stream // the caller's stays as given
		s.SetDefaults(c.Target)
		c.Stream = &s
	}
}

// Load is the load engine's configuration of the drive: its load model, phases and resources.
// The one mapping from a drive to the engine (Phases.Load and the drive's own bounds).
func (c Config) Load() load.Config {
	lc := c.Phases.Load()
	lc.MaxInFlight, lc.Iterations, lc.Resources = c.MaxInFlight, c.Iterations, c.Resources
	return lc
}

// Validate reports a drive that cannot run as configured, as a *setting.Error naming the field;
// it checks c as SetDefaults leaves it (Drive fills them, then checks).
func (c Config) Validate() error {
	// a capacity search's steps have their own measured window
	if err := c.Phases.Validate(c.Peak == nil); err != nil {
		return err
	}
	if err := setting.First(setting.NotNegative("BodyBudget", c.BodyBudget), setting.NotNegative("Timeout", c.Timeout),
		setting.NotNegative("ConnectTimeout", c.ConnectTimeout), setting.NotNegative("MaxInFlight", c.MaxInFlight),
		setting.NotNegative("Iterations", c.Iterations)); err != nil {
		return err
	}
	if len(c.Stages) > 0 && (c.Peak != nil || c.Distributor != nil || c.Repeat > 1) {
		return setting.Errorf("Stages", "a profile in stages is one run in this process: not a capacity search (Peak), a distributed run (Distributor) or a repeated one (Repeat)")
	}
	if c.Peak != nil && c.Peak.Open && c.Rate == 0 {
		return setting.Errorf("Peak", "an open-model search (Peak.Open) searches the arrival rate and needs Rate")
	}
	if c.Peak != nil {
		if err := c.Peak.Validate(); err != nil {
			return setting.In("Peak", err)
		}
	}
	if c.Rules != nil {
		if err := c.Rules.Validate(); err != nil {
			return err
		}
	}
	if err := checkRepeat(c); err != nil {
		return err
	}
	if err := c.Request.validate(c.URL != ""); err != nil {
		return err
	}
	if c.Stream != nil {
		if err := c.Stream.Validate(); err != nil {
			return setting.In("Stream", err)
		}
	}
	return c.checkLive()
}

// MaxLiveLinger bounds Config.LiveLinger: a run that ended should not hold its process long.
const MaxLiveLinger = 10 * time.Minute

// checkLive checks the live views' settings.
func (c Config) checkLive() error {
	for _, f := range []struct{ field, addr string }{{"MetricsListen", c.MetricsListen}, {"Dashboard", c.Dashboard}} {
		if f.addr == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(f.addr); err != nil {
			return setting.Errorf(f.field, "%q is not host:port (e.g. 127.0.0.1:9465): %v", f.addr, err)
		}
	}
	if c.MetricsListen != "" && c.MetricsListen == c.Dashboard {
		return setting.Errorf("Dashboard", "the dashboard and the metrics endpoint need addresses of their own; both are %s", c.Dashboard)
	}
	if c.LiveLinger < 0 || c.LiveLinger > MaxLiveLinger {
		return setting.Errorf("LiveLinger", "%v is out of range: 0 to %v", c.LiveLinger, MaxLiveLinger)
	}
	return nil
}

// UsageError is a drive that cannot run as configured, e.g. more virtual users at once than a
// unique range has values: a mistake in the configuration, not a failure of the run (the
// command line treats it as a bad flag).
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// HTTPWorkload is the results' workload name for driven HTTP scenarios.
const HTTPWorkload = "http"

// LoadScenario resolves a built-in name or a file path and compiles it.
func LoadScenario(nameOrPath string, opt scenario.Options) (*scenario.Scenario, error) {
	data, err := ReadScenario(nameOrPath)
	if err != nil {
		return nil, err
	}
	return parseScenario(nameOrPath, data, opt)
}

// ReadScenario returns the content of a built-in scenario (by name) or a scenario file.
func ReadScenario(nameOrPath string) ([]byte, error) {
	if data, ok := scenarios.Get(nameOrPath); ok && builtinName(nameOrPath) {
		return data, nil
	}
	data, err := untrusted.ReadFile(nameOrPath, untrusted.MaxScenarioBytes, "scenario")
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			hint := ""
			if builtinName(nameOrPath) {
				hint = suggest.DidYouMean(nameOrPath, scenarios.Names())
			}
			return nil, fmt.Errorf("scenario %q is neither a built-in (%s) nor a file%s", nameOrPath, strings.Join(scenarios.Names(), ", "), hint)
		}
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return data, nil
}

// ScenarioInfo is a scenario's line in a list: its name and what it does.
type ScenarioInfo struct{ Name, Description string }

// Builtins are the built-in scenarios, by name, each with its description.
func Builtins() ([]ScenarioInfo, error) {
	var list []ScenarioInfo
	for _, n := range scenarios.Names() {
		sc, err := LoadScenario(n, scenario.Options{})
		if err != nil {
			return nil, err
		}
		list = append(list, ScenarioInfo{n, sc.Description})
	}
	return list, nil
}

func builtinName(s string) bool { return !strings.ContainsAny(s, `/\.`) }

// parseScenario compiles data, naming it as the built-in or by its file's base name.
func parseScenario(nameOrPath string, data []byte, opt scenario.Options) (*scenario.Scenario, error) {
	name := nameOrPath
	if !builtinName(name) {
		name = filepath.Base(nameOrPath)
	}
	return scenario.Parse(name, data, opt)
}

// NewRunID returns a short id unique to this run: the time in base 36 and random letters.
func NewRunID() string {
	var b [3]byte
	rand.Read(b[:])
	r := strconv.FormatUint(uint64(b[0])<<16|uint64(b[1])<<8|uint64(b[2]), 36)
	return strconv.FormatInt(time.Now().Unix(), 36) + strings.Repeat("0", 5-len(r)) + r
}

// Plan is a drive ready to run: its scenario compiled, its virtual users' workload built and its
// limits checked. A distributed run's controller prepares one to check the drive before it asks
// any agent, and each agent prepares its own share before the run may start.
type Plan struct {
	cfg    Config
	sc     *scenario.Scenario
	target string
	quick  bool
	keep   bool
	w      *vuser.Workload
	http   httpc.Options // the run's HTTP client settings
	lc     load.Config
	notes  []string
}

// NewPlan checks cfg, whose defaults are filled (Drive's, or an agent's share after its
// SetDefaults), and compiles its scenario without sending a request.
func NewPlan(cfg Config) (*Plan, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.RunID == "" {
		cfg.RunID = NewRunID()
	}
	p := &Plan{quick: cfg.URL != "", target: cfg.Target}
	opt := scenario.Options{Params: cfg.Params, RunID: cfg.RunID, Think: cfg.Think, Slice: cfg.Slice}
	var err error
	switch {
	case p.quick && (cfg.Target != "" || cfg.Scenario != "" || cfg.ScenarioData != nil):
		return nil, setting.Errorf("URL", "quick mode drives one URL; do not combine it with a target or a scenario")
	case p.quick:
		if len(cfg.Params) > 0 {
			return nil, setting.Errorf("Params", "parameters apply to scenarios; quick mode (one URL) has none")
		}
		p.sc, p.target, err = quickScenario(cfg.URL, cfg.Request, opt)
	default:
		if cfg.Target == "" {
			return nil, setting.Errorf("Target", "the target is required (the base URL of the system under test, e.g. http://localhost:8080), or a URL for quick mode")
		}
		data := cfg.ScenarioData
		if data == nil {
			data, err = ReadScenario(cfg.Scenario)
		}
		if err == nil {
			p.sc, err = parseScenario(cfg.Scenario, data, opt)
		}
		if err != nil {
			// a scenario that cannot be read or compiled is a mistake in the configuration, not
			// a failed run: the error names the field so the caller can say which setting it was
			err = &setting.Error{Field: "Scenario", Err: err}
		}
	}
	if err != nil {
		return nil, err
	}
	p.keep = p.quick
	if cfg.KeepConnections != nil {
		p.keep = *cfg.KeepConnections
	}
	p.http = httpc.Options{Timeout: cfg.Timeout, DialTimeout: cfg.ConnectTimeout, UserAgent: "tradebench/" + report.Version,
		Redirects: cfg.Redirects, Budget: httpc.NewBodyBudget(cfg.BodyBudget)}
	if cfg.Insecure {
		p.http.TLS = &tls.Config{InsecureSkipVerify: true}
	}
	if cfg, p.notes, err = fitUnique(cfg, p.sc); err != nil {
		return nil, err
	}
	if note := LockStep(cfg.Phases, p.sc.Think); note != "" && cfg.Peak == nil {
		p.notes = append(p.notes, note)
	}
	p.w, err = vuser.New(vuser.Config{Target: p.target, Scenario: p.sc, HTTP: p.http, KeepConnections: p.keep, Open: cfg.Rate > 0, Seed: cfg.Seed})
	if err != nil {
		return nil, err
	}
	cfg.Seed = p.w.Seed()
	p.lc = cfg.Load()
	p.cfg = cfg
	return p, nil
}

// Config is the plan's configuration with its defaults filled in: the run id, the seed actually
// used and any bound lowered to fit the scenario's unique ranges.
func (p *Plan) Config() Config { return p.cfg }

// Load is the load engine's configuration of the plan.
func (p *Plan) Load() load.Config { return p.lc }

// ScenarioName is the scenario's name (quick mode: "quick").
func (p *Plan) ScenarioName() string { return p.sc.Name }

// ScenarioData is the scenario file's content (nil in quick mode), which a controller sends to
// its agents so they need no copy.
func (p *Plan) ScenarioData() []byte {
	if p.quick {
		return nil
	}
	return p.sc.Content // the bytes it was parsed from
}

// Run runs the plan's load in this process, from the instant start (zero: now), giving each
// closed second to the plan's watchers and ws. Agents run their share this way: a server on
// the agent's machine, listening on the target's port, is its system under test there (its
// CPU the agent machine's own, not other processes').
func (p *Plan) Run(ctx context.Context, start time.Time, ws ...load.Watcher) (*report.Results, error) {
	lc := p.lc
	lc.StartAt = start
	lc.Watchers = append(slices.Clone(lc.Watchers), ws...)
	var notFound string
	lc.Resources, notFound = findSUT(lc.Resources, p.target, nil)
	res, err := load.Run(ctx, lc, p.w)
	if res != nil && res.Machine != nil {
		res.Machine.SUTNotFound = notFound
	}
	return res, err
}

// Distributor runs a prepared drive somewhere else than in this process — on load agents — and
// returns the merged results. Package fleet's controller is one.
type Distributor interface {
	Distribute(ctx context.Context, p *Plan) (*report.Results, error)
}

// AgentsLostError is a distributed run that lost agents (they stopped reporting): the results
// merge the others', so a caller must be able to tell it from a failed run; a distributor told
// to allow the loss (package fleet's ControllerConfig.AllowLoss) does not return it.
type AgentsLostError struct{ Lost []string }

func (e *AgentsLostError) Error() string {
	return fmt.Sprintf("%d agent(s) lost during the run (%s): the results merge the other agents only", len(e.Lost), strings.Join(e.Lost, ", "))
}

// fitUnique refuses a drive with more virtual users at once than the scenario's unique ranges
// have values for, naming the field (Users, MaxInFlight, Peak.Start). Bounds the user did not
// choose — the open model's default MaxInFlight, a peak search's default MaxUsers — are lowered
// to fit instead, with a note.
func fitUnique(cfg Config, sc *scenario.Scenario) (Config, []string, error) {
	max := sc.MaxUsers()
	refuse := func(field string, n int) error {
		return &UsageError{setting.Errorf(field, "%d at once: %w; lower it to at most %d or widen the range", n, sc.CheckUsers(n), max)}
	}
	var notes []string
	switch {
	case cfg.Rate > 0 && cfg.MaxInFlight == 0:
		if max < load.DefaultMaxInFlight {
			cfg.MaxInFlight = max
			notes = append(notes, fmt.Sprintf("at most %d iterations in flight: each holds one of the scenario's unique values", max))
		}
	case cfg.Rate > 0:
		if cfg.MaxInFlight > max {
			return cfg, nil, refuse("MaxInFlight", cfg.MaxInFlight)
		}
	case cfg.Peak != nil && !cfg.Peak.Open:
		pc := *cfg.Peak // its defaults filled with the drive's; the caller's stays as given
		if int(pc.Start) > max {
			return cfg, nil, refuse("Peak.Start", int(pc.Start))
		}
		if pc.Max > float64(max) {
			pc.Max = float64(max)
			notes = append(notes, fmt.Sprintf("peak search capped at %d users: each holds one of the scenario's unique values", max))
		}
		cfg.Peak = &pc
	default:
		if cfg.Users > max {
			return cfg, nil, refuse("Users", cfg.Users)
		}
	}
	return cfg, notes, nil
}

func (p *Plan) describe(res *report.Results) {
	cfg, sc, target, keep, quick := p.cfg, p.sc, p.target, p.keep, p.quick
	res.Workload = HTTPWorkload
	res.Scenario = sc.Name
	// a URL's credentials are never stored or printed (dsn.Redact: the one redaction)
	res.Target = dsn.Redact(target)
	if quick {
		res.Target = dsn.Redact(cfg.URL)
		res.Settings.Mode = report.ModeQuick
	} else {
		res.Settings.ScenarioSource = sc.Source
		params := map[string]string{}
		for _, p := range sc.Params {
			params[p.Name] = p.Value
		}
		res.Settings.Params = params
	}
	res.Settings.Think = sc.Think.String()
	res.Settings.KeepConnections = &keep
	to := cfg.Timeout
	if to <= 0 {
		to = DefaultTimeout
	}
	res.Settings.Timeout = to.String()
	res.Settings.RunID = cfg.RunID
	res.Settings.Seed = cfg.Seed
	if d := res.Disclosure; d != nil {
		d.Workload.Scenario = sc.Source
		d.Workload.ScenarioHash = disclose.SHA256(sc.Content)
		d.Workload.Think = sc.Think.String()
		for _, t := range cfg.Thresholds {
			d.RunRules.Thresholds = append(d.RunRules.Thresholds, t.String())
		}
		d.RunRules.ErrorsAre = fmt.Sprintf("a transaction with a failed request: a transport error, no answer within %v, "+
			"an HTTP status the scenario does not expect (any status of 400 or more when it names none), "+
			"or a failed content check (contains, not_contains, regex, min_bytes); a transaction cut off by the end of the run is a stop, not an error", to)
	}
}

// recordServer keeps a tradebench target's configuration (/trade/config.json: roles, access
// mode, order mode, database...) in the results as the disclosure's configuration, so a results
// file says what was measured. The instrument keeps the document as the server wrote it (its
// schema is the server's). Other targets (DayTrader) have no such page: nothing is recorded and
// nothing fails.
func recordServer(res *report.Results, tc *targetConfig) {
	if tc == nil || res.Disclosure != nil && len(res.Disclosure.Configuration) > 0 {
		return
	}
	if res.Disclosure == nil {
		res.Disclosure = &report.Disclosure{}
	}
	res.Disclosure.Configuration = tc.raw
}
