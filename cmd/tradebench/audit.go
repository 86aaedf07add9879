package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/tradebench/tradebench/bench/tradejob"
	"github.com/tradebench/tradebench/report"

	"github.com/tradebench/tradebench/internal/cliflag"
	"github.com/tradebench/tradebench/internal/dsn"

	"github.com/tradebench/tradebench/trade/audit"
	"github.com/tradebench/tradebench/trade/store"
	_ "github.com/tradebench/tradebench/trade/store/all"
)

func init() {
	register(&command{name: "audit", summary: "check a database's invariants after a run: no order lost, half-done or applied twice", run: runAuditCmd})
}

var auditHelp = helpText("audit.txt")

func runAuditCmd(ctx context.Context, args []string) error {
	fs := cliflag.NewFlagSet("tradebench audit", "[--db DSN] [--allow-open] [--json] [--results FILE]")
	db := fs.String("db", defaultDB, dbHelp)
	allowOpen := fs.Bool("allow-open", false, "list orders still open or processing instead of counting them as violations")
	asJSON := fs.Bool("json", false, "print the audit summary as JSON instead of text")
	limit := fs.Int("limit", audit.DefaultLimit, "violations of each kind to list (all are counted)")
	results := fs.String("results", "", "a drive's results file (without ramps) to reconcile with the database: its acknowledged and ambiguous buys and sells against the orders placed since the load")
	cliflag.SetHelp(fs, auditHelp)
	if err := cliflag.Parse(fs, args, false); err != nil {
		return err
	}
	if *limit < 1 {
		return cliflag.Errorf("--limit must be at least 1, got %d", *limit)
	}
	var res *report.Results
	if *results != "" {
		var err error
		if res, err = report.ReadFile(*results); err != nil {
			return cliflag.Errorf("--results: %v", err)
		}
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
	if res == nil {
		if *asJSON {
			err = audit.WriteJSON(os.Stdout, sum)
		} else {
			audit.Write(os.Stdout, sum)
		}
		return errors.Join(err, sum.Err())
	}
	rec, err := tradejob.Reconcile(res, sum)
	if err != nil {
		return cliflag.Errorf("--results %s: %v", *results, err)
	}
	if *asJSON {
		err = audit.WriteJSON(os.Stdout, struct {
			*audit.Summary
			Reconciliation audit.Reconciliation `json:"reconciliation"`
		}{sum, rec})
	} else {
		audit.Write(os.Stdout, sum)
		fmt.Println(rec)
	}
	return errors.Join(err, sum.Err(), rec.Err())
}
