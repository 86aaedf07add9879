package main

import (
	"context"
	"encoding/json"
	"os"

	"github.com/tradebench/tradebench/internal/dsn"

	"github.com/tradebench/tradebench/trade/audit"
	"github.com/tradebench/tradebench/trade/store"
	_ "github.com/tradebench/tradebench/trade/store/all"
)

func init() {
	register(&command{name: "audit", summary: "check a database's invariants after a run: no order lost, half-done or applied twice", run: runAuditCmd})
}

const auditHelp = `usage: tradebench audit [--db DSN] [--allow-open] [--json]

Checks a loaded StockTrader database (after a run, once order queues have drained):
  - every order is final (closed, completed or cancelled);
  - each account's balance = opening balance + sells − buys − fees of its completed orders;
  - each holding was made by exactly one completed buy and holds what it bought less what
    was sold; every buy not fully sold still has its holding;
  - each quote's volume = its loaded volume + the shares of the completed orders since;
  - no order was applied twice (a holding credited twice, or sold more than bought).
The checks run in the database as set-based queries in one snapshot, and list the first
violations of each kind with exact amounts. Exit status: 0 clean, 4 violations found,
1 the audit could not run (e.g. the database was never loaded), 2 a bad command line or a
database that does not exist.

examples:
  tradebench audit --db sqlite:tradebench-work/stocktrader.db
  tradebench audit --db postgres://postgres@127.0.0.1:5432/tradebench --allow-open --json

flags:
`

func runAuditCmd(ctx context.Context, args []string) error {
	fs := newFlagSet("audit", "[--db DSN] [--allow-open] [--json]")
	db := fs.String("db", defaultDB, dbHelp)
	allowOpen := fs.Bool("allow-open", false, "list orders still open or processing instead of counting them as violations")
	asJSON := fs.Bool("json", false, "print the audit summary as JSON instead of text")
	limit := fs.Int("limit", audit.DefaultLimit, "violations of each kind to list (all are counted)")
	setHelp(fs, auditHelp)
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	if *limit < 1 {
		return usageErrorf("--limit must be at least 1, got %d", *limit)
	}
	if err := checkDSN(*db); err != nil {
		return err
	}
	if err := needDB(*db, false, "load it first: tradebench load --db "+dsn.Redact(*db)); err != nil {
		return err
	}
	st, err := store.Open(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	sum, err := audit.Run(ctx, st, audit.Options{AllowOpen: *allowOpen, Limit: *limit})
	if err != nil {
		return loadHint(err, *db, false)
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sum); err != nil {
			return err
		}
	} else {
		audit.Write(os.Stdout, sum)
	}
	if !sum.Passed {
		return &audit.Failed{Violations: int(sum.ViolationCount)}
	}
	return nil
}
