// Package driver is the load driver's front door: it turns a drive configuration — a scenario
// (built-in or file) or a single URL, the load model, phases, thresholds, an optional peak
// search — into a run of the load engine and returns the results with the run's settings and
// thresholds filled in. cmd/tradebench's drive and run commands are thin wrappers around Drive.
package driver

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/tradebench/tradebench/driver/httpc"
	"github.com/tradebench/tradebench/driver/load"
	"github.com/tradebench/tradebench/driver/peak"
	"github.com/tradebench/tradebench/driver/scenario"
	"github.com/tradebench/tradebench/driver/scenarios"
	"github.com/tradebench/tradebench/driver/streamload"
	"github.com/tradebench/tradebench/driver/vuser"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/report"
)

// Config is one drive.
type Config struct {
	// Target is the system under test's base URL (scheme://host:port) for scenario paths.
	Target string
	// Scenario is a built-in scenario's name or a scenario file's path.
	Scenario string
	// URL selects quick mode: every iteration is one GET of this URL (templates allowed, e.g.
	// s:{0..1000}). Target and Scenario must then be empty.
	URL string
	// Params override scenario parameters (--set k=v).
	Params map[string]string
	// Think replaces the scenario's think time (nil: the scenario's; quick mode: none).
	Think *scenario.Think

	Users       int
	Rate        float64 // > 0: the open model
	MaxInFlight int
	Iterations  int // per user, closed model (0 = until the duration ends)
	RampUp      time.Duration
	Duration    time.Duration // the measured steady state
	RampDown    time.Duration

	// KeepConnections keeps connections and cookies across iterations (nil: the default — fresh
	// per iteration for scenarios, as the original papers' runs did; kept in quick mode, as wrk does).
	KeepConnections *bool
	Timeout         time.Duration // per request (0 = 60s)
	Insecure        bool          // skip TLS certificate verification

	Progress    io.Writer
	ProgressTTY bool

	Thresholds []report.Threshold
	// Peak, if set, runs a peak search instead of one run (closed model only).
	Peak *peak.Config
	// RunID makes registered user ids unique across runs ("" = generated).
	RunID string
	// Seed seeds the virtual users' random draws: the same seed gives each user the same
	// sequence of values, choices and think times (0 = a random seed; the results record it).
	Seed uint64
	// Slice gives this driver its own part of every unique range ({unique A..B}) when several
	// drivers run the same scenario against one system: agent k of K runs with Slice{k, K} and
	// no two agents' users ever hold the same value. The zero value uses the whole range.
	Slice scenario.Slice

	// Stream, if set, holds stream subscribers open during the run and records event delivery
	// latency in the results (extra.stream); not with a peak search.
	Stream *streamload.Config
}

// UsageError is a drive that cannot run as configured, e.g. more virtual users at once than a
// unique range has values; like a bad flag, its exit status is 2.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// ExitCode is 2, a usage error's exit status.
func (e *UsageError) ExitCode() int { return 2 }

// Workload is the results' workload name for driven HTTP scenarios.
const Workload = "http"

// LoadScenario resolves a built-in name or a file path and compiles it.
func LoadScenario(nameOrPath string, opt scenario.Options) (*scenario.Scenario, error) {
	if data, ok := scenarios.Get(nameOrPath); ok && !strings.ContainsAny(nameOrPath, `/\.`) {
		return scenario.Parse(nameOrPath, data, opt)
	}
	data, err := os.ReadFile(nameOrPath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("scenario %q is neither a built-in (%s) nor a file", nameOrPath, strings.Join(scenarios.Names(), ", "))
		}
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return scenario.Parse(filepath.Base(nameOrPath), data, opt)
}

// NewRunID returns a short id unique to this run: the time in base 36 and random letters.
func NewRunID() string {
	var b [3]byte
	rand.Read(b[:])
	r := strconv.FormatUint(uint64(b[0])<<16|uint64(b[1])<<8|uint64(b[2]), 36)
	return strconv.FormatInt(time.Now().Unix(), 36) + strings.Repeat("0", 5-len(r)) + r
}

// quickScenario is quick mode's one-request scenario, written in the scenario format so it
// runs through exactly the same engine.
func quickScenario(rawURL string, opt scenario.Options) (*scenario.Scenario, string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, "", setting.Errorf("URL", "%q: %v", rawURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, "", setting.Errorf("URL", "%q: give an absolute http:// or https:// URL", rawURL)
	}
	target := u.Scheme + "://" + u.Host
	path := u.RequestURI()
	doc := map[string]any{
		"name": "quick",
		"flow": []any{map[string]any{"request": map[string]any{"name": "GET " + u.Path, "url": path}}},
	}
	data, err := yaml.Marshal(doc)
	if err != nil {
		return nil, "", err
	}
	sc, err := scenario.Parse("url", data, opt)
	return sc, target, err
}

// Drive runs cfg and returns its results. A run that completes but misses a threshold returns
// the results and a *report.ThresholdsFailed (exit status 3); an interrupted run returns what
// was measured and the context's error.
func Drive(ctx context.Context, cfg Config) (*report.Results, error) {
	if cfg.RunID == "" {
		cfg.RunID = NewRunID()
	}
	quick := cfg.URL != ""
	opt := scenario.Options{Params: cfg.Params, RunID: cfg.RunID, Think: cfg.Think, Slice: cfg.Slice}
	var sc *scenario.Scenario
	var err error
	target := cfg.Target
	switch {
	case quick && (cfg.Target != "" || cfg.Scenario != ""):
		return nil, setting.Errorf("URL", "quick mode drives one URL; do not combine it with a target or a scenario")
	case quick:
		if len(cfg.Params) > 0 {
			return nil, setting.Errorf("Params", "parameters apply to scenarios; quick mode (one URL) has none")
		}
		sc, target, err = quickScenario(cfg.URL, opt)
	default:
		if cfg.Target == "" {
			return nil, setting.Errorf("Target", "the target is required (the base URL of the system under test, e.g. http://localhost:8080), or a URL for quick mode")
		}
		name := cfg.Scenario
		if name == "" {
			name = DefaultScenario
		}
		sc, err = LoadScenario(name, opt)
	}
	if err != nil {
		return nil, err
	}
	keep := quick
	if cfg.KeepConnections != nil {
		keep = *cfg.KeepConnections
	}
	hopt := httpc.Options{Timeout: cfg.Timeout, UserAgent: "tradebench/" + report.Version}
	if cfg.Insecure {
		hopt.TLS = &tls.Config{InsecureSkipVerify: true}
	}
	var notes []string
	if cfg, notes, err = fitUnique(cfg, sc); err != nil {
		return nil, err
	}
	w, err := vuser.New(vuser.Config{Target: target, Scenario: sc, HTTP: hopt, KeepConnections: keep, Open: cfg.Rate > 0, Seed: cfg.Seed})
	if err != nil {
		return nil, err
	}
	cfg.Seed = w.Seed()
	lc := load.Config{Users: cfg.Users, Rate: cfg.Rate, MaxInFlight: cfg.MaxInFlight, Iterations: cfg.Iterations,
		RampUp: cfg.RampUp, Steady: cfg.Duration, RampDown: cfg.RampDown, Progress: cfg.Progress, ProgressTTY: cfg.ProgressTTY, Label: sc.Name}

	var res *report.Results
	if cfg.Peak != nil {
		if cfg.Rate > 0 {
			return nil, setting.Errorf("Rate", "peak search steps virtual users (the closed model); it cannot run at an arrival rate")
		}
		if cfg.Stream != nil {
			return nil, setting.Errorf("Stream", "stream subscribers measure one run; they cannot run through a peak search")
		}
		pc := *cfg.Peak
		res, err = runPeak(ctx, pc, lc, w)
	} else {
		res, err = streamload.Measure(ctx, cfg.Stream, cfg.RampUp, cfg.Duration, func() (*report.Results, error) { return load.Run(ctx, lc, w) })
	}
	if res == nil {
		return nil, err
	}
	describe(res, cfg, sc, target, keep, quick)
	res.Notes = append(res.Notes, notes...)
	if !quick {
		recordServer(ctx, res, target)
	}
	if err != nil {
		return res, err
	}
	if len(cfg.Thresholds) > 0 {
		return res, res.CheckThresholds(cfg.Thresholds)
	}
	return res, nil
}

// fitUnique refuses a drive with more virtual users at once than the scenario's unique ranges
// have values for. Bounds the user did not choose — the open model's default --max-in-flight, a
// peak search's --peak-max-users — are lowered to fit instead, with a note.
func fitUnique(cfg Config, sc *scenario.Scenario) (Config, []string, error) {
	max := sc.MaxUsers()
	refuse := func(flag string, n int) error {
		return &UsageError{fmt.Errorf("%s %d: %w; lower %s to at most %d or widen the range", flag, n, sc.CheckUsers(n), flag, max)}
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
			return cfg, nil, refuse("--max-in-flight", cfg.MaxInFlight)
		}
	case cfg.Peak != nil:
		pc := *cfg.Peak
		pc.Defaults()
		if pc.Start > max {
			return cfg, nil, refuse("--peak-start", pc.Start)
		}
		if pc.MaxUsers > max {
			pc.MaxUsers = max
			notes = append(notes, fmt.Sprintf("peak search capped at %d users: each holds one of the scenario's unique values", max))
		}
		cfg.Peak = &pc
	default:
		if cfg.Users > max {
			return cfg, nil, refuse("--users", cfg.Users)
		}
	}
	return cfg, notes, nil
}

func runPeak(ctx context.Context, pc peak.Config, lc load.Config, w load.Workload) (*report.Results, error) {
	pc.Defaults()
	base := lc.Label
	ps, best, err := peak.Search(ctx, pc, func(ctx context.Context, step, users int) (*report.Results, error) {
		c := lc
		c.Users = users
		c.Steady = pc.StepDuration
		c.RampDown = 0
		c.Label = fmt.Sprintf("%s step %d (%d users)", base, step, users)
		return load.Run(ctx, c, w)
	})
	if best == nil {
		if err == nil {
			err = fmt.Errorf("peak search found no step within its bounds: %s", ps.StopWhy)
		}
		return nil, err
	}
	best.Settings.Peak = &report.PeakSettings{StepDuration: pc.StepDuration.String(), Start: pc.Start, Step: pc.Step, MaxUsers: pc.MaxUsers}
	if pc.MaxP90 > 0 {
		best.Settings.Peak.MaxP90 = pc.MaxP90.String()
	}
	best.Notes = append(best.Notes, fmt.Sprintf("peak search: the transactions above are step %d (%d users), the peak", ps.PeakStep, ps.PeakUsers))
	return best, err
}

func describe(res *report.Results, cfg Config, sc *scenario.Scenario, target string, keep, quick bool) {
	res.Workload = Workload
	res.Scenario = sc.Name
	res.Target = target
	if quick {
		res.Target = cfg.URL
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
}

// recordServer asks a tradebench target for its configuration (/trade/config.json: roles,
// access mode, order mode, database...) and keeps it in the results as the disclosure's
// configuration, so a results file says what was measured. The instrument keeps the document
// as the server wrote it (its schema is the server's), checking only that it is a JSON object.
// Other targets (DayTrader) have no such page: nothing is recorded and nothing fails.
func recordServer(ctx context.Context, res *report.Results, target string) {
	if res.Disclosure != nil && len(res.Disclosure.Configuration) > 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(target, "/")+"/trade/config.json", nil)
	if err != nil {
		return
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	var doc json.RawMessage
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&doc) != nil ||
		!bytes.HasPrefix(doc, []byte("{")) {
		return
	}
	if res.Disclosure == nil {
		res.Disclosure = &report.Disclosure{}
	}
	res.Disclosure.Configuration = doc
}
