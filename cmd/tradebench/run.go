package main

import (
	"context"
	"errors"
	"flag"
	"os"
	"strconv"

	"github.com/tradebench/tradebench/bench/tradejob"
	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/internal/cliflag"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/report/publish"
	"github.com/tradebench/tradebench/trade/audit"
	"github.com/tradebench/tradebench/trade/orders"
	"github.com/tradebench/tradebench/trade/remote"
)

func init() {
	register(&command{name: "run", summary: "the main job: load a StockTrader data set, serve it, measure its capacity with the 19-step scenario, report a verdict (≈3–4 min)", run: runRun})
}

var runHelp = helpText("run.txt")

// runFlags names the flags that set tradejob.Config's fields.
var runFlags = cliflag.Names{"DB": "db", "Access": "access", "Orders": "orders"}

// runJobFlags are run's own flags: the embedded data set and server, and --versus.
type runJobFlags struct {
	workdir, db, access, orders, versus *string
	accounts, quotes                    *int
}

func (r *runJobFlags) register(fs *flag.FlagSet) {
	r.workdir = fs.String("work-dir", tradejob.DefaultWorkdir, "working directory for the database and results")
	cliflag.Alias(fs, "work-dir", "workdir")
	r.accounts = fs.Int("accounts", tradejob.DefaultAccounts, "accounts in the embedded data set (uid:0…; up to the 2007 paper's 500000 and beyond)")
	r.quotes = fs.Int("quotes", tradejob.DefaultQuotes, "quotes in the embedded data set (s:0…; the 2007 paper used 100000)")
	r.db = fs.String("db", "", "database DSN for the embedded run (default sqlite:<work-dir>/stocktrader.db; postgres://… works too)")
	r.access = fs.String("access", remote.InProcess, "embedded run: how the web tier calls the business services: inprocess, soap, rest or grpc (over loopback TCP to the process's own services host)")
	r.orders = fs.String("orders", string(orders.Sync), "embedded run: order processing mode: sync, async-durable, async-volatile, async-http, async-grpc (see 'tradebench serve --help'); the run waits for queued orders before the audit")
	r.versus = fs.String("versus", "", "A/B in one command: B is this run with one setting changed, KEY=VALUE (access=…, orders=…, db=…); --repeat N trials of each (default 5) run interleaved in a random order per pair, then both results and their comparison are written (docs/guide.md \"A/B in one command\")")
}

// check refuses the embedded run's flags beside a target, and a bad setting before the working
// directory is made (a failed run leaves nothing).
func (r *runJobFlags) check(given map[string]bool, target string) (tradejob.Embedded, error) {
	if *r.accounts < 1 || *r.quotes < 1 {
		return tradejob.Embedded{}, cliflag.Errorf("--accounts and --quotes must be at least 1")
	}
	if target != "" && (given["accounts"] || given["quotes"] || given["db"]) {
		return tradejob.Embedded{}, cliflag.Errorf("--accounts, --quotes and --db size the embedded run; with --target use --set users=N --set quotes=N")
	}
	if target != "" && (given["access"] || given["orders"]) {
		return tradejob.Embedded{}, cliflag.Errorf("--access and --orders configure the embedded server; with --target configure the target itself")
	}
	e := tradejob.Embedded{Access: *r.access, Orders: orders.Mode(*r.orders), DB: *r.db}
	if err := e.Validate(); err != nil {
		return e, runFlags.UsageError(err)
	}
	return e, nil
}

// job is the main job's configuration on side e of the embedded server.
func (r *runJobFlags) job(e tradejob.Embedded) tradejob.Config {
	return tradejob.Config{Workdir: *r.workdir, Embedded: e, Accounts: *r.accounts, Quotes: *r.quotes, Log: os.Stderr,
		Audit: tradejob.StoreAudit(audit.Options{})}
}

func runRun(ctx context.Context, args []string) error {
	fs := cliflag.NewFlagSet("tradebench run", "[flags]")
	var f driveFlags
	// no --users is a capacity search (tradejob.MeasuresCapacity), not 50 users
	f.register(fs, driver.Phases{RampUp: tradejob.DefaultRampUp, Duration: tradejob.DefaultDuration, RampDown: tradejob.DefaultRampDown})
	var ff fleetFlags
	ff.register(fs)
	var rf runJobFlags
	rf.register(fs)
	var vf verifyFirst
	vf.register(fs)
	users := fs.Lookup("users")
	users.Usage += " (default: none — run searches for the capacity; " + strconv.Itoa(tradejob.DefaultUsers) + " with --agents)"
	cliflag.SetHelp(fs, runHelp)
	if err := cliflag.Parse(fs, args, false); err != nil {
		return err
	}
	given := cliflag.Given(fs)
	if !given["max-error-rate"] {
		f.limits.MaxErrorRate = new(0.0001) // 0.01%
	}
	a, err := rf.check(given, f.cfg.Target)
	if err != nil {
		return err
	}
	var sides [2]tradejob.Embedded
	vsKey, err := f.runVersusFlags(&sides, a, *rf.versus, f.cfg.Target != "" || ff.agents != 0, given["repeat"])
	if err != nil {
		return err
	}
	if ff.agents != 0 && f.phases.p.Users == 0 && f.phases.p.Rate == 0 {
		f.phases.p.Users = tradejob.DefaultUsers // agents drive a load; they do not search for one
	}
	f.peak = f.peak || tradejob.MeasuresCapacity(f.phases.p) // with the search's flags
	f.publish.Dir = *rf.workdir                              // without --out, every run keeps its own results there
	f.versus = vsKey != ""
	cfg, err := f.config(fs, "")
	if err != nil {
		return err
	}
	if ff.agents != 0 && f.cfg.Target == "" {
		return cliflag.Errorf("--agents drives an external deployment: give --target (the embedded server listens on 127.0.0.1, out of the agents' reach)")
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
	if vsKey != "" {
		return runRunVersus(ctx, &f, &rf, cfg, sides, vsKey)
	}
	res, err := tradejob.Run(ctx, rf.job(sides[0]), cfg)
	if res == nil {
		return runFlags.OrUsage(driverFlags.OrUsage(err))
	}
	addVerification(res, verified)
	return f.finish(res, agentLossHint(err))
}

// runVersusFlags reads run's --versus KEY=VALUE: side A is a, side B a with the key changed; the
// key is returned ("" without --versus), and the repeats become its trials.
func (f *driveFlags) runVersusFlags(sides *[2]tradejob.Embedded, a tradejob.Embedded, versus string, external, repeatGiven bool) (string, error) {
	sides[0] = a
	if versus == "" {
		return "", nil
	}
	if external {
		return "", cliflag.Errorf("--versus changes a setting of the embedded run (access, orders, db); with --target or --agents run each configuration and use 'tradebench report compare'")
	}
	key, value, err := parseVersus(versus, tradejob.EmbeddedKeys)
	if err != nil {
		return "", err
	}
	if sides[1], err = versusSide(a, key, value); err != nil {
		return "", err
	}
	f.repeat, err = versusRepeat(f.repeat, repeatGiven)
	return key, err
}

// runRunVersus is run --versus: the trials of both sides of the embedded server, each keeping
// its own results file in the work directory.
func runRunVersus(ctx context.Context, f *driveFlags, rf *runJobFlags, cfg driver.Config, sides [2]tradejob.Embedded, key string) error {
	paths, err := versusFiles(&f.publish, *rf.workdir)
	if err != nil {
		return err
	}
	labels := versusLabels(cfg.Label, key, sides[0].Value(key), sides[1].Value(key))
	return runVersus(ctx, &f.publish, cfg, labels, f.repeat, paths, func(ctx context.Context, k int, c driver.Config) (*report.Results, error) {
		tc := rf.job(sides[k])
		res, err := tradejob.Run(ctx, tc, c)
		if res == nil {
			return nil, runFlags.OrUsage(driverFlags.OrUsage(err))
		}
		// each trial keeps its own results file in the work directory (no report: each side's
		// results, with every trial, are the report)
		trialOut := publish.Output{Dir: tc.Workdir, NoReport: true, Log: os.Stderr}
		return res, errors.Join(agentLossHint(err), trialOut.Write(res))
	})
}
