package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/tradebench/tradebench/bench/tradejob"
	"github.com/tradebench/tradebench/trade/audit"
	"github.com/tradebench/tradebench/trade/orders"
	"github.com/tradebench/tradebench/trade/remote"
	"github.com/tradebench/tradebench/trade/server"
)

func init() {
	register(&command{name: "run", summary: "the main job: load a StockTrader data set, serve it, drive the 19-step scenario, report (≈3 min)", run: runRun})
}

const runHelp = `usage: tradebench run [flags]

The one-command main job. With no flags it creates ./tradebench-work/, loads an embedded SQLite
StockTrader data set (5,000 accounts, 1,000 quotes; reset instead of reloaded on later runs),
starts the StockTrader monolith in this process on 127.0.0.1, drives the 2007 paper's 19-step
stocktrader scenario (50 users, 1 s think, 30 s ramp-up, 2 min measured, 10 s ramp-down: about
three minutes in all), prints the transaction summary, writes the results JSON to
./tradebench-work/results.json and its HTML report beside it (results.html; --no-report: none)
and stops everything. --pricing FILE.yaml adds price/performance (see 'tradebench report
--help'). At the end it audits the database (see 'tradebench audit --help'; the result is in
the summary, the results JSON and the report). It exits 0
when the run passed its thresholds (by default: error rate at most 0.01%, the 2007 paper's
criterion) and the audit, 3 when a threshold failed, 4 when the audit found violations.

With --target it drives an external deployment instead (e.g. Apache DayTrader): nothing is
loaded or served; size the scenario to that database with --set users=N --set quotes=N.

examples:
  tradebench run
  tradebench run --accounts 500000 --quotes 100000 --users 500 --duration 30m
  tradebench run --scenario buysell --users 100
  tradebench run --access grpc --orders async-durable --peak
  tradebench run --peak --pricing pricing.yaml --out sqlite.json     # sqlite.json + sqlite.html
  tradebench run --target http://daytrader:9080 --set users=15000 --set quotes=10000 --users 200
  tradebench run --target http://sut:8080 --nats-listen 0.0.0.0:4222 --agents 4 --users 400   # on 4 agents

With --agents N (and --target) the load runs on N 'tradebench agent' processes joined over NATS;
see 'tradebench drive --help' and docs/distributed.md. Exit 5 when an agent was lost.

flags:
`

func runRun(ctx context.Context, args []string) error {
	fs := newFlagSet("run", "[flags]")
	var f driveFlags
	f.register(fs, tradejob.DefaultUsers, tradejob.DefaultDuration, tradejob.DefaultRampUp, tradejob.DefaultRampDown)
	var ff fleetFlags
	ff.register(fs)
	workdir := fs.String("work-dir", tradejob.DefaultWorkdir, "working directory for the database and results")
	alias(fs, "work-dir", "workdir")
	accounts := fs.Int("accounts", tradejob.DefaultAccounts, "accounts in the embedded data set (uid:0…; up to the 2007 paper's 500000 and beyond)")
	quotes := fs.Int("quotes", tradejob.DefaultQuotes, "quotes in the embedded data set (s:0…; the 2007 paper used 100000)")
	db := fs.String("db", "", "database DSN for the embedded run (default sqlite:<work-dir>/stocktrader.db; postgres://… works too)")
	acc := fs.String("access", remote.InProcess, "embedded run: how the web tier calls the business services: inprocess, soap, rest or grpc (over loopback TCP to the process's own services host)")
	ordersMode := fs.String("orders", string(orders.Sync), "embedded run: order processing mode: sync, async-durable, async-volatile, async-http, async-grpc (see 'tradebench serve --help'); the run waits for queued orders before the audit")
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
		return usageErrorf("--access: unknown access mode %q: use one of %s", *acc, strings.Join(remote.Accesses(), ", "))
	}
	om, err := orders.ParseMode(*ordersMode)
	if err != nil {
		return usageErrorf("--orders: %v", err)
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
	out, err := tradejob.Run(ctx, tradejob.Config{Workdir: *workdir, DB: *db, Accounts: *accounts, Quotes: *quotes, Drive: cfg, Out: f.out, Log: os.Stderr,
		Audit: tradejob.StoreAudit(audit.Options{}),
		Serve: func(c *server.Config) { c.Access, c.Orders.Mode = *acc, om }})
	if out == nil || out.Results == nil {
		return driverFlags.orUsage(err)
	}
	err = agentLossHint(err)
	if f.publish.pricing != nil && out.Out != "" {
		// the job wrote the results; priced, they are written again (atomically) with the price
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
	}
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("interrupted; partial results kept")
	}
	return err
}
