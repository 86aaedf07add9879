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

// Config is one main-job run.
type Config struct {
	// Workdir holds the database ("" = DefaultWorkdir); created if missing.
	Workdir string
	// Embedded is the embedded server's access mode, order mode and database (its zero value:
	// the monolith's defaults on sqlite:WORKDIR/stocktrader.db).
	Embedded Embedded
	// Data set size for the embedded run.
	Accounts, Quotes, Holdings int
	// Drive is the load: its Target empty means "the embedded monolith". Scenario parameters
	// users and quotes default to the data set's size. With no Users, Rate or Peak the job
	// measures capacity: a peak search with Capacity's settings (the papers' method).
	Drive driver.Config
	// Log receives the job's own messages (steps, where things are); nil = io.Discard.
	Log io.Writer
	// Audit, if set, checks the database after the run (the correctness audit) and its
	// summary goes into the results; a failed audit fails the run. StoreAudit is the usual one.
	Audit func(ctx context.Context, srv *server.Server) (*report.AuditSummary, error)
	// Serve adjusts the embedded server's configuration further, after Embedded; nil = none.
	Serve func(*server.Config)
	// DrainTimeout bounds the wait, after the load, for asynchronous orders still queued to
	// complete before the audit (0 = 60 s).
	DrainTimeout time.Duration
}

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

// Run does the job and returns its results, which it does not write (the command publishes
// them: report/publish). Results come back even when a threshold fails (the error then is a
// *report.ThresholdsFailed) or the run is interrupted.
func Run(ctx context.Context, cfg Config) (*report.Results, error) {
	logw := cfg.Log
	if logw == nil {
		logw = io.Discard
	}
	say := func(format string, args ...any) { fmt.Fprintf(logw, "tradebench run: "+format+"\n", args...) }
	dc := cfg.Drive
	if dc.Scenario == "" && dc.URL == "" {
		dc.Scenario = "stocktrader"
	}
	if cfg.Workdir == "" {
		cfg.Workdir = DefaultWorkdir
	}
	if cfg.Accounts == 0 {
		cfg.Accounts = DefaultAccounts
	}
	if cfg.Quotes == 0 {
		cfg.Quotes = DefaultQuotes
	}
	spec := dataset.DefaultSpec()
	spec.Accounts, spec.Quotes = cfg.Accounts, cfg.Quotes
	if cfg.Holdings > 0 {
		spec.Holdings = cfg.Holdings
	}
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Embedded.Validate(); err != nil {
		return nil, err
	}
	if dc.URL == "" {
		// a scenario that cannot be read or compiled fails the run before anything is made: no
		// working directory, no data set loaded for a drive that cannot start
		if _, err := driver.LoadScenario(dc.Scenario, scenario.Options{Params: dc.Params}); err != nil {
			return nil, &setting.Error{Field: "Scenario", Err: err}
		}
	}
	if err := os.MkdirAll(cfg.Workdir, 0o755); err != nil {
		return nil, fmt.Errorf("working directory: %w", err)
	}
	if dc.Users == 0 && dc.Rate == 0 && dc.Peak == nil {
		dc.Peak = Capacity()
	}
	rules := report.DefaultRules()
	if dc.Rules != nil {
		rules = *dc.Rules
	}

	var srv *server.Server
	queued := false // orders complete after their request (an async mode): their latency means something
	if dc.Target == "" && dc.URL == "" {
		db := cfg.Embedded.DB
		if db == "" {
			db = "sqlite:" + filepath.Join(cfg.Workdir, "stocktrader.db")
		}
		if err := prepare(ctx, db, spec, say, logw); err != nil {
			return nil, err
		}
		sc := server.DefaultConfig()
		sc.DB, sc.Listen = db, "127.0.0.1:0"
		sc.Logger = slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: slog.LevelWarn}))
		sc.Orders.WorkDir = cfg.Workdir
		if e := cfg.Embedded; e.Access != "" {
			sc.Access = e.Access
		}
		if e := cfg.Embedded; e.Orders != "" {
			sc.Orders.Mode = e.Orders
		}
		if cfg.Serve != nil {
			cfg.Serve(&sc)
		}
		queued = sc.Orders.Mode != orders.Sync
		var err error
		srv, err = server.Start(ctx, sc)
		if err != nil {
			return nil, fmt.Errorf("start the StockTrader monolith: %w", err)
		}
		defer srv.Close()
		if srv.Access() == nil {
			return nil, errors.New("the embedded run needs the web role: it drives the pages")
		}
		say("serving StockTrader (monolith, %s, access %s, orders %s) at %s", dsn.Redact(db), srv.Access().Mode(), sc.Orders.Mode, srv.URL()+"/trade/")
		dc.Target = srv.URL()
		// the scenario draws users and quotes from the data set just loaded
		params := map[string]string{"users": strconv.Itoa(spec.Accounts), "quotes": strconv.Itoa(spec.Quotes)}
		for k, v := range dc.Params {
			params[k] = v
		}
		dc.Params = params
		// The monolith runs in this process, beside the driver: its CPU and memory include the
		// driver's, and the name says so (see docs/guide.md, "Resources of the system under test").
		dc.Resources = append(dc.Resources, sut.Self(SelfName))
		if !strings.HasPrefix(db, "sqlite:") {
			// a database server on this machine: the processes serving the monolith's own
			// connections (PostgreSQL's backends) are the system under test's too, their CPU
			// beside the monolith's (the machine reading follows them from this process)
			dc.Resources = append(dc.Resources, sut.FollowSelf())
		}
		// Repeated runs each start from the loaded data set: the orders of the run before are
		// completed, then the database is reset under the running server.
		dc.BetweenRepeats = func(ctx context.Context, run int) error {
			drain(ctx, srv.Store(), cfg.DrainTimeout, say)
			start := time.Now()
			if err := srv.Store().Reset(ctx); err != nil {
				return fmt.Errorf("reset the data set before run %d: %w", run, err)
			}
			say("run %d: reset the data set in %v", run, time.Since(start).Round(time.Millisecond))
			return nil
		}
	}
	total := dc.RampUp + dc.Duration + dc.RampDown
	switch {
	case dc.Peak != nil:
		pc := *dc.Peak
		pc.SetDefaults()
		what := fmt.Sprintf("%g users", pc.Start)
		if pc.Open {
			what = fmt.Sprintf("%g iterations/s", pc.Start)
		}
		say("measuring capacity with %s at %s: load grows ×%g from %s (%v ramp-up + %v per step) to the knee, bisects, then confirms at the peak for %v",
			dc.Scenario, dc.Target, pc.Factor, what, *pc.StepRampUp, pc.StepDuration, pc.ConfirmDuration)
		if srv != nil {
			say("the driver shares this machine and process with the server: the capacity measured includes the driver's own cost")
		}
	case dc.Rate > 0:
		say("driving %s at %s: %g iterations/s, %v ramp-up, %v measured, %v ramp-down", dc.Scenario, dc.Target, dc.Rate, dc.RampUp, dc.Duration, dc.RampDown)
	default:
		say("driving %s at %s: %d users, %v ramp-up, %v measured, %v ramp-down (%v in all)", dc.Scenario, dc.Target, dc.Users, dc.RampUp, dc.Duration, dc.RampDown, total)
	}
	res, err := driver.Drive(ctx, dc, driver.HTTP)
	if res == nil {
		return nil, err
	}
	var inv *report.InvalidError
	if errors.As(err, &inv) {
		err = nil // judged again below, with the audit
	}
	var stopped *driver.InterruptedError
	interrupted := errors.As(err, &stopped) // its verdict says so: what finished is written, nothing is judged again
	if srv != nil {
		discloseServer(ctx, res, srv)
		if conf, cerr := report.Section(srv.Describe()); cerr != nil {
			say("the server's configuration not recorded: %v", cerr)
		} else {
			if res.Disclosure == nil {
				res.Disclosure = &report.Disclosure{}
			}
			res.Disclosure.Configuration = conf
		}
		if ctx.Err() == nil {
			drain(ctx, srv.Store(), cfg.DrainTimeout, say)
			if !queued {
				// sync mode: an order completes inside its request, so "open → closed" is 0 ms
				// for every order; no line and no detail.orders rather than a meaningless one
			} else if ol, err := completionLatency(ctx, srv.Store()); err != nil {
				say("order completion latency not measured: %v", err)
			} else if ol != nil {
				if res.Detail, err = report.Section(Detail{Orders: ol}); err != nil {
					say("order completion latency not recorded: %v", err)
				}
				say("order completion (open → closed) of the run's %d orders: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms (%d still open)",
					ol.Completed, ol.P50Ms, ol.P90Ms, ol.P99Ms, ol.MaxMs, ol.Open)
			}
		}
		if cfg.Audit != nil && ctx.Err() == nil {
			a, aerr := cfg.Audit(ctx, srv)
			if aerr != nil {
				say("the audit could not run: %v", aerr)
				res.AuditError = aerr.Error()
			} else {
				res.Audit = a
				say("audited the database in %.2fs: %d violations", a.Seconds, a.ViolationCount)
				if !a.Passed && err == nil {
					err = &audit.Failed{Violations: int(a.ViolationCount)}
				}
			}
		}
	}
	// every reason is returned (an audit failure, a threshold, the verdict): the command's
	// exit-code table says which one wins
	if !interrupted {
		err = errors.Join(err, res.Judge(rules))
	}
	return res, err
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
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
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
