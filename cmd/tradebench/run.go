package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/tradebench/tradebench/bench/tradejob"
	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/internal/suggest"
	"github.com/tradebench/tradebench/report/htmlreport"
	"github.com/tradebench/tradebench/trade/audit"
	"github.com/tradebench/tradebench/trade/orders"
	"github.com/tradebench/tradebench/trade/remote"
	"github.com/tradebench/tradebench/trade/server"
)

func init() {
	register(&command{name: "run", summary: "the main job: load a StockTrader data set, serve it, measure its capacity with the 19-step scenario, report a verdict (≈3–4 min)", run: runRun})
}

const runHelp = `usage: tradebench run [flags]

The one-command main job: it measures the platform's capacity as the StockTrader papers did.
With no flags it creates ./tradebench-work/, loads an embedded SQLite StockTrader data set
(5,000 accounts, 1,000 quotes; reset instead of reloaded on later runs), starts the StockTrader
monolith in this process on 127.0.0.1 and searches for its peak with the 2007 paper's 19-step
stocktrader scenario and 1 s think time: virtual users double each short step (from 100) until
throughput stops rising with them or a bound is crossed (p90 500 ms, error rate 0.01%), the knee
is bisected, and one longer run confirms the peak (about 3–4 minutes in all on a 2-core
machine). It prints the verdict, the capacity (peak TPS, users at the peak, p90 and the server's
CPU there) and the confirming run's transaction table. The driver runs in the same process as
the server, so the capacity includes the driver's own cost, and the report says so.

Results are never overwritten: each run writes ./tradebench-work/results-YYYYMMDD-HHMMSS.json
and its HTML report (.html; --no-report: none) and copies both to results.json/results.html,
the latest. A named --out that exists is refused unless --force. --pricing FILE.yaml adds
price/performance (see 'tradebench report --help'). At the end it audits the database (see
'tradebench audit --help').

--users N runs today's fixed load instead (N users, 30 s ramp-up, 2 min measured, 10 s
ramp-down); --rate R the open model; --peak with --rate searches the arrival rate.

Every result carries a verdict under the run rules (--rule-*; docs/guide.md "Run rules"):
valid, invalid or inconclusive, with the reasons. Exit status: 0 valid or inconclusive, 2 bad
command line or a target that failed the preflight, 3 a threshold failed (by default: error
rate at most 0.01%, the 2007 paper's criterion), 4 the audit found violations, 5 an agent was
lost, 6 the run is invalid.

With --target it drives an external deployment instead (e.g. Apache DayTrader): nothing is
loaded or served. The scenario's first request is tried once before the load; a tradebench
target's data set sizes users and quotes; for another, give --set users=N --set quotes=N.

examples:
  tradebench run
  tradebench run --users 50                                            # the fixed 50-user run
  tradebench run --accounts 500000 --quotes 100000 --users 500 --duration 30m
  tradebench run --scenario buysell --users 100
  tradebench run --access grpc --orders async-durable
  tradebench run --users 50 --versus access=rest                # A/B: 5 trials each, interleaved
  tradebench run --pricing pricing.yaml --out sqlite.json     # sqlite.json + sqlite.html
  tradebench run --target http://daytrader:9080 --set users=15000 --set quotes=10000 --users 200
  tradebench run --target http://sut:8080 --nats-listen 0.0.0.0:4222 --agents 4 --users 400   # on 4 agents

--versus KEY=VALUE (access=…, orders=… or db=…) is an A/B comparison in one command: B is the run
with that one setting changed. --repeat N trials of each (default 5) run alternately, in a random
order within each pair, so the machine's drift falls on both alike; then both results (X-A.json,
X-B.json with --out X.json; else versus-…-A.json in the work directory), their reports and the
comparison (X-compare.html, as 'report compare' draws it) are written and its table printed.

With --agents N (and --target) the load runs on N 'tradebench agent' processes joined over NATS;
see 'tradebench drive --help' and docs/distributed.md.

flags:
`

// runFlags names the flags that set tradejob.Config's fields.
var runFlags = flagNames{"Out": "out", "Force": "force"}

func runRun(ctx context.Context, args []string) error {
	fs := newFlagSet("run", "[flags]")
	var f driveFlags
	f.register(fs, driver.Phases{Users: tradejob.DefaultUsers, RampUp: tradejob.DefaultRampUp, Duration: tradejob.DefaultDuration, RampDown: tradejob.DefaultRampDown})
	var ff fleetFlags
	ff.register(fs)
	workdir := fs.String("work-dir", tradejob.DefaultWorkdir, "working directory for the database and results")
	alias(fs, "work-dir", "workdir")
	accounts := fs.Int("accounts", tradejob.DefaultAccounts, "accounts in the embedded data set (uid:0…; up to the 2007 paper's 500000 and beyond)")
	quotes := fs.Int("quotes", tradejob.DefaultQuotes, "quotes in the embedded data set (s:0…; the 2007 paper used 100000)")
	db := fs.String("db", "", "database DSN for the embedded run (default sqlite:<work-dir>/stocktrader.db; postgres://… works too)")
	acc := fs.String("access", remote.InProcess, "embedded run: how the web tier calls the business services: inprocess, soap, rest or grpc (over loopback TCP to the process's own services host)")
	ordersMode := fs.String("orders", string(orders.Sync), "embedded run: order processing mode: sync, async-durable, async-volatile, async-http, async-grpc (see 'tradebench serve --help'); the run waits for queued orders before the audit")
	versus := fs.String("versus", "", "A/B in one command: B is this run with one setting changed, KEY=VALUE (access=…, orders=…, db=…); --repeat N trials of each (default 5) run interleaved in a random order per pair, then both results and their comparison are written (docs/guide.md \"A/B in one command\")")
	var vf verifyFirst
	vf.register(fs)
	setHelp(fs, runHelp)
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	given := givenFlags(fs)
	if !given["max-error-rate"] {
		f.maxErrorRate = "0.01%"
	}
	if *accounts < 1 || *quotes < 1 {
		return usageErrorf("--accounts and --quotes must be at least 1")
	}
	if f.cfg.Target != "" && (given["accounts"] || given["quotes"] || given["db"]) {
		return usageErrorf("--accounts, --quotes and --db size the embedded run; with --target use --set users=N --set quotes=N")
	}
	if f.cfg.Target != "" && (given["access"] || given["orders"]) {
		return usageErrorf("--access and --orders configure the embedded server; with --target configure the target itself")
	}
	if !slices.Contains(remote.Accesses(), *acc) {
		return usageErrorf("--access: unknown access mode %q%s: use one of %s", *acc, suggest.DidYouMean(*acc, remote.Accesses()), strings.Join(remote.Accesses(), ", "))
	}
	om, err := orders.ParseMode(*ordersMode)
	if err != nil {
		return usageErrorf("--orders: %v", err)
	}
	sides := [2]embedded{{access: *acc, orders: om, db: *db}}
	var vsKey string
	if *versus != "" {
		if f.cfg.Target != "" || ff.agents != 0 {
			return usageErrorf("--versus changes a setting of the embedded run (access, orders, db); with --target or --agents run each configuration and use 'tradebench report compare'")
		}
		var value string
		if vsKey, value, err = parseVersus(*versus, versusKeys); err != nil {
			return err
		}
		if sides[1], err = sides[0].set(vsKey, value); err != nil {
			return err
		}
		if !given["repeat"] {
			f.repeat = DefaultVersusRepeat
		}
		if f.repeat < 1 || f.repeat > driver.MaxRepeat {
			return usageErrorf("--repeat: --versus runs this many trials of each side: between 1 and %d, got %d", driver.MaxRepeat, f.repeat)
		}
	}
	if !given["users"] && !given["c"] && !given["rate"] && ff.agents == 0 {
		f.peak = true // no load given: measure capacity
	}
	cfg, err := f.config(fs, "")
	if err != nil {
		return err
	}
	if err := runPaths(*db, f.out); err != nil {
		return err // refused before the working directory is made: a failed run leaves nothing
	}
	if ff.agents != 0 && f.cfg.Target == "" {
		return usageErrorf("--agents drives an external deployment: give --target (the embedded server listens on 127.0.0.1, out of the agents' reach)")
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
	job := func(e embedded, dc driver.Config) tradejob.Config {
		return tradejob.Config{Workdir: *workdir, DB: e.db, Accounts: *accounts, Quotes: *quotes, Drive: dc, Out: f.out, Force: f.force, Log: os.Stderr,
			Audit: tradejob.StoreAudit(audit.Options{}),
			Serve: func(c *server.Config) { c.Access, c.Orders.Mode = e.access, e.orders }}
	}
	if vsKey != "" {
		paths, err := versusFiles(f.out, *workdir, f.force, !f.publish.noReport)
		if err != nil {
			return err
		}
		return runVersus(ctx, &f.publish, cfg, vsKey, sides, f.repeat, paths, job)
	}
	out, err := tradejob.Run(ctx, job(sides[0], cfg))
	if out == nil || out.Results == nil {
		return runFlags.orUsage(driverFlags.orUsage(err))
	}
	err = agentLossHint(err)
	addVerification(out.Results, verified)
	if (f.publish.pricing != nil || verified != nil) && out.Out != "" {
		// the job wrote the results; priced or verified, they are written again (atomically)
		// with the price and the verification
		f.publish.price(out.Results)
		if werr := out.Results.WriteFile(out.Out); werr != nil {
			err = errors.Join(err, fmt.Errorf("write results: %w", werr))
		}
	}
	out.Results.WriteSummary(os.Stdout)
	if out.Out != "" {
		fmt.Fprintf(os.Stderr, "results written to %s\n", out.Out)
		if rerr := f.publish.writeReport(out.Results, out.Out); rerr != nil {
			err = errors.Join(err, rerr)
		}
		if out.Latest != "" {
			fmt.Fprintf(os.Stderr, "latest results: %s\n", out.Latest)
			if rerr := copyLatest(&f.publish, out.Out, out.Latest); rerr != nil {
				err = errors.Join(err, rerr)
			}
		}
	}
	return err
}

// copyLatest makes the work directory's results.json and results.html the latest run's (after
// pricing rewrote the results, when it did).
func copyLatest(pub *publishFlags, out, latest string) error {
	if err := tradejob.CopyLatest(out, latest); err != nil {
		return fmt.Errorf("the latest results copy: %w", err)
	}
	if pub.noReport {
		return nil
	}
	if err := tradejob.CopyLatest(htmlreport.PathFor(out), htmlreport.PathFor(latest)); err != nil {
		return fmt.Errorf("the latest report copy: %w", err)
	}
	return nil
}
