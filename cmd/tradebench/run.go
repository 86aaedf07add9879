package main

import (
	"context"
	"errors"
	"os"

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

func runRun(ctx context.Context, args []string) error {
	fs := cliflag.NewFlagSet("tradebench run", "[flags]")
	var f driveFlags
	f.register(fs, driver.Phases{Users: tradejob.DefaultUsers, RampUp: tradejob.DefaultRampUp, Duration: tradejob.DefaultDuration, RampDown: tradejob.DefaultRampDown})
	var ff fleetFlags
	ff.register(fs)
	workdir := fs.String("work-dir", tradejob.DefaultWorkdir, "working directory for the database and results")
	cliflag.Alias(fs, "work-dir", "workdir")
	accounts := fs.Int("accounts", tradejob.DefaultAccounts, "accounts in the embedded data set (uid:0…; up to the 2007 paper's 500000 and beyond)")
	quotes := fs.Int("quotes", tradejob.DefaultQuotes, "quotes in the embedded data set (s:0…; the 2007 paper used 100000)")
	db := fs.String("db", "", "database DSN for the embedded run (default sqlite:<work-dir>/stocktrader.db; postgres://… works too)")
	acc := fs.String("access", remote.InProcess, "embedded run: how the web tier calls the business services: inprocess, soap, rest or grpc (over loopback TCP to the process's own services host)")
	ordersMode := fs.String("orders", string(orders.Sync), "embedded run: order processing mode: sync, async-durable, async-volatile, async-http, async-grpc (see 'tradebench serve --help'); the run waits for queued orders before the audit")
	versus := fs.String("versus", "", "A/B in one command: B is this run with one setting changed, KEY=VALUE (access=…, orders=…, db=…); --repeat N trials of each (default 5) run interleaved in a random order per pair, then both results and their comparison are written (docs/guide.md \"A/B in one command\")")
	var vf verifyFirst
	vf.register(fs)
	// no --users is a capacity search, not 50 users: the help says so instead of "(default 50)"
	users := fs.Lookup("users")
	users.DefValue, users.Usage = "0", users.Usage+" (default: none — run searches for the capacity; 50 with --agents)"
	cliflag.SetHelp(fs, runHelp)
	if err := cliflag.Parse(fs, args, false); err != nil {
		return err
	}
	given := cliflag.Given(fs)
	if !given["max-error-rate"] {
		f.limits.MaxErrorRate = new(0.0001) // 0.01%
	}
	if *accounts < 1 || *quotes < 1 {
		return cliflag.Errorf("--accounts and --quotes must be at least 1")
	}
	if f.cfg.Target != "" && (given["accounts"] || given["quotes"] || given["db"]) {
		return cliflag.Errorf("--accounts, --quotes and --db size the embedded run; with --target use --set users=N --set quotes=N")
	}
	if f.cfg.Target != "" && (given["access"] || given["orders"]) {
		return cliflag.Errorf("--access and --orders configure the embedded server; with --target configure the target itself")
	}
	sides := [2]tradejob.Embedded{{Access: *acc, Orders: orders.Mode(*ordersMode), DB: *db}}
	if err := sides[0].Validate(); err != nil {
		return runFlags.UsageError(err) // refused before the working directory is made: a failed run leaves nothing
	}
	var vsKey string
	if *versus != "" {
		if f.cfg.Target != "" || ff.agents != 0 {
			return cliflag.Errorf("--versus changes a setting of the embedded run (access, orders, db); with --target or --agents run each configuration and use 'tradebench report compare'")
		}
		vk, value, err := parseVersus(*versus, tradejob.EmbeddedKeys)
		if err != nil {
			return err
		}
		vsKey = vk
		if sides[1], err = versusSide(sides[0], vsKey, value); err != nil {
			return err
		}
		if f.repeat, err = versusRepeat(f.repeat, given["repeat"]); err != nil {
			return err
		}
	}
	if !given["users"] && !given["c"] && !given["rate"] && ff.agents == 0 {
		f.peak = true // no load given: measure capacity
	}
	f.publish.Dir = *workdir // without --out, every run keeps its own results there
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
	job := func(e tradejob.Embedded, dc driver.Config) tradejob.Config {
		return tradejob.Config{Workdir: *workdir, Embedded: e, Accounts: *accounts, Quotes: *quotes, Drive: dc, Log: os.Stderr,
			Audit: tradejob.StoreAudit(audit.Options{})}
	}
	if vsKey != "" {
		paths, err := versusFiles(&f.publish, *workdir)
		if err != nil {
			return err
		}
		labels := versusLabels(cfg.Label, vsKey, sides[0].Value(vsKey), sides[1].Value(vsKey))
		return runVersus(ctx, &f.publish, cfg, labels, f.repeat, paths, func(ctx context.Context, k int, c driver.Config) (*report.Results, error) {
			tc := job(sides[k], c)
			res, err := tradejob.Run(ctx, tc)
			if res == nil {
				return nil, runFlags.OrUsage(driverFlags.OrUsage(err))
			}
			// each trial keeps its own results file in the work directory (no report: each side's
			// results, with every trial, are the report)
			trialOut := publish.Output{Dir: tc.Workdir, NoReport: true, Log: os.Stderr}
			return res, errors.Join(agentLossHint(err), trialOut.Write(res))
		})
	}
	res, err := tradejob.Run(ctx, job(sides[0], cfg))
	if res == nil {
		return runFlags.OrUsage(driverFlags.OrUsage(err))
	}
	addVerification(res, verified)
	return f.finish(res, agentLossHint(err))
}
