// Package tradejob is `tradebench run`, the one-command main job: prepare a working directory
// and an embedded SQLite StockTrader data set, start the monolith in-process on loopback, drive
// the stocktrader scenario through ramp-up, a measured steady state and ramp-down, and leave a
// results file — or, with a target URL, drive an external deployment (DayTrader, a cluster)
// without loading or serving anything.
package tradejob

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tradebench/tradebench/internal/natsx"

	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/driver/peak"
	"github.com/tradebench/tradebench/driver/recorder"
	"github.com/tradebench/tradebench/driver/scenario"
	"github.com/tradebench/tradebench/driver/sut"
	"github.com/tradebench/tradebench/internal/dsn"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/internal/suggest"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/trade/audit"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/orders"
	"github.com/tradebench/tradebench/trade/remote"
	"github.com/tradebench/tradebench/trade/server"
	"github.com/tradebench/tradebench/trade/store"
	_ "github.com/tradebench/tradebench/trade/store/all" // the sqlite and postgres drivers
)

// Defaults: a data set and load that take about three minutes on a laptop, end to end.
const (
	DefaultWorkdir  = dataset.DefaultDir // the one default data set (see package dataset)
	DefaultAccounts = dataset.DefaultAccounts
	DefaultQuotes   = dataset.DefaultQuotes
	DefaultUsers    = 50
	DefaultRampUp   = 30 * time.Second
	DefaultDuration = 2 * time.Minute
	DefaultRampDown = 10 * time.Second
)

// Config is the main job's own settings: the data set and the embedded server. The load is the
// drive's (driver.Config), as for every job: Run(ctx, Config, driver.Config).
type Config struct {
	// Workdir holds the database ("" = DefaultWorkdir); created if missing.
	Workdir string
	// Embedded is the embedded server's access mode, order mode and database (its zero value:
	// the monolith's defaults on sqlite:WORKDIR/stocktrader.db).
	Embedded Embedded
	// Data set size for the embedded run (0 = DefaultAccounts, DefaultQuotes, the data set's
	// default holdings).
	Accounts, Quotes, Holdings int
	// Log receives the job's own messages (steps, where things are); nil = io.Discard.
	Log io.Writer
	// Audit, if set, checks the database after the run (the correctness audit): its summary goes
	// into the results, where the run rules judge it (rule "audit"); a failed audit also returns
	// an *audit.Failed. StoreAudit is the usual one.
	Audit func(ctx context.Context, srv *server.Server) (*report.AuditSummary, error)
	// Serve adjusts the embedded server's configuration further, after Embedded; nil = none.
	Serve func(*server.Config)
	// DrainTimeout bounds the wait, after the load, for asynchronous orders still queued to
	// complete before the audit (0 = DefaultDrainTimeout).
	DrainTimeout time.Duration
}

// DefaultDrainTimeout is Config.DrainTimeout's default.
const DefaultDrainTimeout = 60 * time.Second

// SetDefaults fills the zero fields that have a default: the one place the job's are filled.
func (c *Config) SetDefaults() {
	c.Workdir = cmp.Or(c.Workdir, DefaultWorkdir)
	c.Accounts = cmp.Or(c.Accounts, DefaultAccounts)
	c.Quotes = cmp.Or(c.Quotes, DefaultQuotes)
	c.DrainTimeout = cmp.Or(c.DrainTimeout, DefaultDrainTimeout)
	if c.Log == nil {
		c.Log = io.Discard
	}
}

// spec is the data set c loads, checked.
func (c *Config) spec() (store.LoadSpec, error) {
	spec := dataset.DefaultSpec()
	spec.Accounts, spec.Quotes = c.Accounts, c.Quotes
	if c.Holdings > 0 {
		spec.Holdings = c.Holdings
	}
	return spec, spec.Validate()
}

// MeasuresCapacity is the rule of `run`: a drive given no load (no Users, no Rate) measures the
// capacity, with a search (Capacity's, or the one the drive sets) — the papers' method. The one
// place it is decided: Run applies it, and the command asks it before its flags are checked.
func MeasuresCapacity(p driver.Phases) bool { return p.Users == 0 && p.Rate == 0 && len(p.Stages) == 0 }

// StoreAudit is the Audit hook that runs package audit on the server's database.
func StoreAudit(opts audit.Options) func(ctx context.Context, srv *server.Server) (*report.AuditSummary, error) {
	return func(ctx context.Context, srv *server.Server) (*report.AuditSummary, error) {
		s, err := audit.Run(ctx, srv.Store(), opts)
		if s == nil {
			return nil, err
		}
		r := report.AuditSummary(*s)
		return &r, err
	}
}

// Capacity is the search `run` makes when no load is given: the package peak defaults with
// the command line's bounds (p90 500 ms, error rate 0.01 %).
func Capacity() *peak.Config {
	return &peak.Config{MaxP90: peak.DefaultMaxP90, MaxErrorRate: peak.DefaultMaxErrorRate}
}

// Embedded is the embedded run's server: the settings `run --access`, `--orders` and `--db`
// give, and `run --versus KEY=VALUE` changes one of (EmbeddedKeys) — checked in one place.
type Embedded struct {
	// Access is how the web tier calls the business services, one of remote.Accesses() ("" =
	// in-process).
	Access string
	// Orders is the order processing mode ("" = sync).
	Orders orders.Mode
	// DB is the database DSN ("" = sqlite:WORKDIR/stocktrader.db).
	DB string
}

// EmbeddedKeys are the settings Embedded.Set changes, by the names --versus gives them.
var EmbeddedKeys = []string{"access", "orders", "db"}

// Validate checks each setting before anything is made (a *setting.Error naming the field): an
// unknown access or order mode, a DSN that does not parse, a SQLite database in a directory
// that does not exist (PostgreSQL DSNs pass: the server says) — a failed run leaves nothing.
func (e Embedded) Validate() error {
	if e.Access != "" && !slices.Contains(remote.Accesses(), e.Access) {
		return setting.Errorf("Access", "unknown access mode %q%s: use one of %s", e.Access, suggest.DidYouMean(e.Access, remote.Accesses()), strings.Join(remote.Accesses(), ", "))
	}
	if e.Orders != "" {
		if _, err := orders.ParseMode(string(e.Orders)); err != nil {
			return &setting.Error{Field: "Orders", Err: err}
		}
	}
	if e.DB == "" {
		return nil
	}
	drv, target, err := dsn.Parse(e.DB)
	if err != nil {
		return &setting.Error{Field: "DB", Err: err}
	}
	if drv == dsn.SQLite {
		dir := filepath.Dir(strings.SplitN(target, "?", 2)[0])
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return setting.Errorf("DB", "%s: the directory %s does not exist", e.DB, dir)
		}
	}
	return nil
}

// Set returns e with key, one of EmbeddedKeys, set to value and checked.
func (e Embedded) Set(key, value string) (Embedded, error) {
	switch key {
	case "access":
		e.Access = value
	case "orders":
		e.Orders = orders.Mode(value)
	case "db":
		e.DB = value
	default:
		return e, fmt.Errorf("%s is not a setting of the embedded run: use one of %s", key, strings.Join(EmbeddedKeys, ", "))
	}
	return e, e.Validate()
}

// Value is the setting key has in e, as --versus names it (its default when unset); a DSN is
// redacted, as a label is printed and stored.
func (e Embedded) Value(key string) string {
	switch key {
	case "access":
		return cmp.Or(e.Access, remote.InProcess)
	case "orders":
		return string(cmp.Or(e.Orders, orders.Sync))
	}
	if e.DB == "" {
		return "default"
	}
	return dsn.Redact(e.DB)
}

// Run runs the main job c through the one pipeline (driver.Drive) under the drive d, and returns
// its results, which it does not write (the command publishes them: report/publish). With no
// Target or URL, d drives the embedded monolith c loads and serves; with no load given
// (MeasuresCapacity) it searches for the capacity. Results come back even when a threshold
// fails (the error then is a *report.ThresholdsFailed), the audit fails (*audit.Failed beside
// the verdict) or the run is interrupted.
func Run(ctx context.Context, c Config, d driver.Config) (*report.Results, error) {
	if MeasuresCapacity(d.Phases) && d.Peak == nil {
		d.Peak = Capacity()
	}
	c.SetDefaults()
	w := &workload{cfg: c}
	defer w.close()
	res, err := driver.Drive(ctx, d, w)
	if res != nil && res.Audit != nil && !res.Audit.Passed && ctx.Err() == nil {
		// the audit's rule made the verdict invalid; the error names the cause for the exit status
		err = errors.Join(err, &audit.Failed{Violations: int(res.Audit.ViolationCount)})
	}
	return res, err
}

// workload is the main job as a driver.Workload: the HTTP workload against the embedded
// monolith (started by the first run's Prepare, its data set reset before every later run, closed
// when Run ends) or against the drive's own target.
type workload struct {
	cfg  Config
	srv  *server.Server // the embedded monolith; nil before the first run or with a target
	runs int
	// queued: the server's orders complete after their request (an async mode), so their
	// completion latency means something
	queued bool
}

func (w *workload) say(format string, args ...any) {
	fmt.Fprintf(w.cfg.Log, "tradebench run: "+format+"\n", args...)
}

func (w *workload) close() {
	if w.srv != nil {
		w.srv.Close()
	}
}

// Prepare implements driver.Workload: the settings checked before anything is made, then the
// embedded server started (or its data set reset for a repeat) and the HTTP workload prepared
// against it.
func (w *workload) Prepare(ctx context.Context, d *driver.Config) (*driver.Run, error) {
	c := &w.cfg
	w.runs++
	spec, err := c.spec()
	if err != nil {
		return nil, err
	}
	if err := c.Embedded.Validate(); err != nil {
		return nil, err
	}
	if d.URL == "" {
		// a scenario that cannot be read or compiled fails the run before anything is made: no
		// working directory, no data set loaded for a drive that cannot start
		if _, err := driver.LoadScenario(d.Scenario, scenario.Options{Params: d.Params}); err != nil {
			return nil, &setting.Error{Field: "Scenario", Err: err}
		}
	}
	if err := os.MkdirAll(c.Workdir, 0o755); err != nil {
		return nil, fmt.Errorf("working directory: %w", err)
	}
	if d.Target != "" || d.URL != "" {
		run, err := driver.HTTP.Prepare(ctx, d)
		if err == nil {
			w.announce(d)
		}
		return run, err
	}
	if d.Distributor != nil {
		return nil, setting.Errorf("Distributor", "the embedded server listens on 127.0.0.1, out of the agents' reach: give a Target")
	}
	if err := w.serve(ctx, spec, d); err != nil {
		return nil, err
	}
	run, err := driver.HTTP.Prepare(ctx, d)
	if err != nil {
		return nil, err
	}
	w.announce(d)
	run.Steps = &embeddedSteps{Steps: run.Steps, w: w}
	return run, nil
}

// serve readies the embedded monolith for this run — the data set loaded and the server started
// for the first, the orders of the run before completed and the database reset under the running
// server for a repeat, so each starts from the loaded data set — and points d at it.
func (w *workload) serve(ctx context.Context, spec store.LoadSpec, d *driver.Config) error {
	c := &w.cfg
	db := c.Embedded.DB
	if db == "" {
		db = "sqlite:" + filepath.Join(c.Workdir, "stocktrader.db")
	}
	if w.srv != nil {
		drain(ctx, w.srv.Store(), c.DrainTimeout, w.say)
		start := time.Now()
		if err := w.srv.Store().Reset(ctx); err != nil {
			return fmt.Errorf("reset the data set before run %d: %w", w.runs, err)
		}
		w.say("run %d: reset the data set in %v", w.runs, time.Since(start).Round(time.Millisecond))
	} else if err := w.start(ctx, db, spec); err != nil {
		return err
	}
	d.Target = w.srv.URL()
	// the scenario draws users and quotes from the data set just loaded
	params := map[string]string{"users": strconv.Itoa(spec.Accounts), "quotes": strconv.Itoa(spec.Quotes)}
	maps.Copy(params, d.Params)
	d.Params = params
	// The monolith runs in this process, beside the driver: its CPU and memory include the
	// driver's, and the name says so (see docs/guide.md, "Resources of the system under test").
	d.Resources = append(slices.Clip(d.Resources), sut.Self(SelfName))
	if !strings.HasPrefix(db, "sqlite:") {
		// a database server on this machine: the processes serving the monolith's own
		// connections (PostgreSQL's backends) are the system under test's too, their CPU
		// beside the monolith's (the machine reading follows them from this process)
		d.Resources = append(d.Resources, sut.FollowSelf())
	}
	return nil
}

// start loads db and starts the embedded monolith on it.
func (w *workload) start(ctx context.Context, db string, spec store.LoadSpec) error {
	c := &w.cfg
	if err := prepare(ctx, db, spec, w.say, c.Log); err != nil {
		return err
	}
	sc := server.DefaultConfig()
	sc.DB, sc.Listen = db, "127.0.0.1:0"
	sc.Logger = slog.New(slog.NewTextHandler(c.Log, &slog.HandlerOptions{Level: slog.LevelWarn}))
	sc.Orders.WorkDir = c.Workdir
	if e := c.Embedded; e.Access != "" {
		sc.Access = e.Access
	}
	if e := c.Embedded; e.Orders != "" {
		sc.Orders.Mode = e.Orders
	}
	if c.Serve != nil {
		c.Serve(&sc)
	}
	srv, err := server.Start(ctx, sc)
	if err != nil {
		return fmt.Errorf("start the StockTrader monolith: %w", err)
	}
	if srv.Access() == nil {
		srv.Close()
		return errors.New("the embedded run needs the web role: it drives the pages")
	}
	w.srv, w.queued = srv, sc.Orders.Mode != orders.Sync
	w.say("serving StockTrader (monolith, %s, access %s, orders %s) at %s", dsn.Redact(db), srv.Access().Mode(), sc.Orders.Mode, srv.URL()+"/trade/")
	return nil
}

// announce says what the run is about to measure.
func (w *workload) announce(d *driver.Config) {
	switch {
	case d.Peak != nil:
		pc := *d.Peak // its defaults filled by the drive
		what := fmt.Sprintf("%g users", pc.Start)
		if pc.Open {
			what = fmt.Sprintf("%g iterations/s", pc.Start)
		}
		w.say("measuring capacity with %s at %s: load grows ×%g from %s (%v ramp-up + %v per step) to the knee, bisects, then confirms at the peak for %v",
			d.Scenario, d.Target, pc.Factor, what, *pc.StepRampUp, pc.StepDuration, pc.ConfirmDuration)
		if w.srv != nil {
			w.say("the driver shares this machine and process with the server: the capacity measured includes the driver's own cost")
		}
	case d.Rate > 0:
		w.say("driving %s at %s: %g iterations/s, %v ramp-up, %v measured, %v ramp-down", d.Scenario, d.Target, d.Rate, d.RampUp, d.Duration, d.RampDown)
	default:
		w.say("driving %s at %s: %d users, %v ramp-up, %v measured, %v ramp-down (%v in all)", d.Scenario, d.Target, d.Users, d.RampUp, d.Duration, d.RampDown, d.RampUp+d.Duration+d.RampDown)
	}
}

// embeddedSteps are the HTTP workload's steps against the embedded monolith, and after the load
// what only the embedded run knows: the server's disclosure, the orders drained and their
// completion latency, the audit (a run rule: Drive judges it with the rest).
type embeddedSteps struct {
	driver.Steps
	w *workload
}

// Preflight implements driver.Preflighter: the HTTP workload's.
func (s *embeddedSteps) Preflight(ctx context.Context, cfg *driver.Config, run *driver.Run) error {
	if pf, ok := s.Steps.(driver.Preflighter); ok {
		return pf.Preflight(ctx, cfg, run)
	}
	return nil
}

// Describe implements driver.Steps.
func (s *embeddedSteps) Describe(ctx context.Context, res *report.Results) error {
	if err := s.Steps.Describe(ctx, res); err != nil || res.Disclosure == nil { // nil: the live dashboard's first frame
		return err
	}
	w, srv := s.w, s.w.srv
	discloseServer(ctx, res, srv)
	if conf, cerr := report.Section(srv.Describe()); cerr != nil {
		w.say("the server's configuration not recorded: %v", cerr)
	} else {
		res.Disclosure.Configuration = conf
	}
	if ctx.Err() != nil {
		return nil // interrupted: what finished is kept, nothing more is asked of the database
	}
	drain(ctx, srv.Store(), w.cfg.DrainTimeout, w.say)
	w.orderLatency(ctx, res)
	if w.cfg.Audit != nil {
		a, aerr := w.cfg.Audit(ctx, srv)
		if aerr != nil {
			w.say("the audit could not run: %v", aerr)
			res.AuditError = aerr.Error()
		} else {
			res.Audit = a
			w.say("audited the database in %.2fs: %d violations", a.Seconds, a.ViolationCount)
		}
	}
	return nil
}

// orderLatency records the run's order completion latency in an asynchronous order mode.
func (w *workload) orderLatency(ctx context.Context, res *report.Results) {
	if !w.queued {
		// sync mode: an order completes inside its request, so "open → closed" is 0 ms for
		// every order; no line and no detail.orders rather than a meaningless one
		return
	}
	ol, err := completionLatency(ctx, w.srv.Store())
	if err != nil {
		w.say("order completion latency not measured: %v", err)
		return
	}
	if ol == nil {
		return
	}
	if res.Detail, err = report.Section(Detail{Orders: ol}); err != nil {
		w.say("order completion latency not recorded: %v", err)
	}
	w.say("order completion (open → closed) of the run's %d orders: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms (%d still open)",
		ol.Completed, ol.P50Ms, ol.P90Ms, ol.P99Ms, ol.MaxMs, ol.Open)
}

// SelfName names this process in the results' sut section when it serves the monolith itself.
const SelfName = "tradebench (monolith and driver in one process)"

// discloseServer adds to the results' disclosure what only the embedded run knows: the data set
// as loaded, the database engine's version and, in a queued order mode, the NATS server's.
func discloseServer(ctx context.Context, res *report.Results, srv *server.Server) {
	d := res.Disclosure
	if d == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	st := srv.Store()
	if info, err := st.Loaded(ctx); err == nil {
		sp := info.Spec
		d.DataSet = &report.DataSet{Accounts: int64(sp.Accounts), Quotes: int64(sp.Quotes),
			Holdings: int64(sp.Holdings), Orders: int64(sp.Holdings), Seed: sp.Seed}
	}
	if v, ok := st.(store.Versioner); ok {
		if s, err := v.ServerVersion(ctx); err == nil {
			d.Software.Database = s
		}
	}
	if o := srv.Orders(); o != nil && o.NATSURL != "" {
		if nc, err := natsx.Connect(o.NATSURL, natsx.ConnectConfig{Name: "tradebench run: disclosure", Token: o.NATSToken, Timeout: 2 * time.Second}); err == nil {
			d.Software.NATS = "NATS server " + nc.ConnectedServerVersion()
			nc.Close()
		}
	}
}

// prepare leaves db holding exactly spec's data set: a database already loaded with the same
// spec is reset (fast), anything else is loaded afresh.
func prepare(ctx context.Context, db string, spec store.LoadSpec, say func(string, ...any), logw io.Writer) error {
	st, err := store.Open(ctx, db)
	if err != nil {
		return fmt.Errorf("open %s: %w", dsn.Redact(db), err)
	}
	defer st.Close()
	start := time.Now()
	info, err := st.Loaded(ctx)
	if err == nil && info.Spec == spec {
		if err := st.Reset(ctx); err != nil {
			return fmt.Errorf("reset %s: %w", dsn.Redact(db), err)
		}
		say("reset %s to its loaded state (%d accounts, %d quotes) in %v", dsn.Redact(db), spec.Accounts, spec.Quotes, time.Since(start).Round(time.Millisecond))
		return nil
	}
	if err != nil && !errors.Is(err, store.ErrNotLoaded) {
		return fmt.Errorf("%s: %w", dsn.Redact(db), err)
	}
	say("loading %d accounts, %d quotes, %d holdings each into %s", spec.Accounts, spec.Quotes, spec.Holdings, dsn.Redact(db))
	last := time.Now()
	err = st.Load(ctx, spec, func(done, total int64) {
		if time.Since(last) >= 5*time.Second && total > 0 {
			last = time.Now()
			say("loading: %d%%", 100*done/total)
		}
	})
	if err != nil {
		return fmt.Errorf("load %s: %w", dsn.Redact(db), err)
	}
	say("loaded in %v", time.Since(start).Round(time.Millisecond))
	return nil
}

// drain waits, after the load, until no order is open any more (asynchronous modes complete
// orders after the request), so the audit sees the final state; it gives up after timeout and
// lets the audit report what is still open.
func drain(ctx context.Context, st store.Store, timeout time.Duration, say func(string, ...any)) {
	start := time.Now()
	for {
		open, err := st.OpenOrders(ctx, 0, 1)
		if err != nil {
			say("could not tell whether the order queue drained: %v", err)
			return
		}
		if len(open) == 0 {
			if time.Since(start) > time.Second {
				say("order queue drained in %v", time.Since(start).Round(time.Millisecond))
			}
			return
		}
		if time.Since(start) > timeout {
			say("orders still open after waiting %v for the queue to drain", timeout)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Detail is the run job's own results (the results' detail section).
type Detail struct {
	// Orders is the order completion latency; nil when the run placed no order.
	Orders *OrderLatency `json:"orders,omitempty"`
}

// DetailOf reads the run job's own results from res; report.ErrNoSection when there are none.
func DetailOf(res *report.Results) (Detail, error) {
	return report.SectionAs[Detail](res.Detail)
}

// OrderLatency is how long the run's orders took from placement to completion (the
// asynchronous modes' queueing and processing; 0 in sync mode, where an order completes in its
// request). It goes into the results under detail.orders.
type OrderLatency struct {
	Placed    int     `json:"placed"`
	Completed int     `json:"completed"`
	Open      int     `json:"open"`
	P50Ms     float64 `json:"p50_ms"`
	P90Ms     float64 `json:"p90_ms"`
	P99Ms     float64 `json:"p99_ms"`
	MaxMs     float64 `json:"max_ms"`
}

// completionLatency reads the orders placed since the load (ids above the load marker's) and
// records completion date minus open date in the kit's standard HDR histogram (bounded memory
// however many orders a run places); nil when the run placed none.
func completionLatency(ctx context.Context, st store.Store) (*OrderLatency, error) {
	info, err := st.Loaded(ctx)
	if err != nil {
		return nil, err
	}
	var ol OrderLatency
	h := recorder.NewHistogram()
	for after := info.MaxOrderID; ; {
		page, err := st.OrdersAfter(ctx, after, 5000)
		if err != nil {
			return nil, err
		}
		for _, o := range page {
			ol.Placed++
			if o.CompletionDate.IsZero() {
				ol.Open++
				continue
			}
			ol.Completed++
			recorder.Record(h, o.CompletionDate.Sub(o.OpenDate))
		}
		if len(page) < 5000 {
			break
		}
		after = page[len(page)-1].OrderID
	}
	if ol.Placed == 0 {
		return nil, nil
	}
	if ol.Completed > 0 {
		ms := func(us int64) float64 { return float64(us) / 1000 }
		ol.P50Ms, ol.P90Ms, ol.P99Ms, ol.MaxMs = ms(h.ValueAtQuantile(50)), ms(h.ValueAtQuantile(90)), ms(h.ValueAtQuantile(99)), ms(h.Max())
	}
	return &ol, nil
}
