package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/tradebench/tradebench/driver/progress"
	"github.com/tradebench/tradebench/internal/cliflag"
	"github.com/tradebench/tradebench/internal/dsn"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/server"
	"github.com/tradebench/tradebench/trade/store"
	_ "github.com/tradebench/tradebench/trade/store/all"
)

// defaultDB is the database load, reset and audit use by default: the one serve uses.
var defaultDB = server.DefaultConfig().DB

func init() {
	register(&command{name: "load", summary: "fill a database with the StockTrader data set (replaces its contents)", run: runLoad})
	register(&command{name: "reset", summary: "return a loaded database to exactly its loaded state", run: runReset})
}

// checkDSN is the usage check of a --db (exit status 2 before anything is opened).
func checkDSN(db string) error {
	if _, _, err := dsn.Parse(db); err != nil {
		return cliflag.Errorf("--db: %v", err)
	}
	return nil
}

// needDB is dsn.Need with the flag named (exit status 2): a --db that is not there is refused
// before anything opens it; a load may make the default working directory. hint says what to do
// about a missing database.
func needDB(db string, create bool, hint string) error {
	err := dsn.Need(db, create, dataset.DefaultDir)
	switch {
	case errors.Is(err, dsn.ErrNoDatabase):
		return cliflag.Errorf("--db %v; %s", err, hint)
	case errors.Is(err, dsn.ErrNoDir):
		return cliflag.Errorf("--db %v", err)
	}
	return err
}

const dbHelp = "database: sqlite:PATH or postgres://user:pass@host:port/dbname"

func runLoad(ctx context.Context, args []string) error {
	def := dataset.DefaultSpec()
	fs := cliflag.NewFlagSet("tradebench load", "[--db DSN] [--accounts N] [--quotes N] [--holdings N] [--seed N]")
	db := fs.String("db", defaultDB, dbHelp)
	accounts := fs.Int("accounts", def.Accounts, "number of accounts uid:0… (password xxx)")
	quotes := fs.Int("quotes", def.Quotes, "number of quotes s:0…")
	holdings := fs.Int("holdings", def.Holdings, "holdings per account, each with the completed buy order that made it")
	seed := fs.Int64("seed", def.Seed, "random seed: one seed always generates the same data")
	cost := fs.Int("hash-cost", def.HashCost, "bcrypt cost of the users' password hash (hashed once for the whole load)")
	pf := cliflag.AddProgress(fs)
	cliflag.SetHelp(fs, helpText("load.txt", "{{default-db}}", dataset.DefaultDB))
	if err := cliflag.Parse(fs, args, false); err != nil {
		return err
	}
	spec := store.LoadSpec{Accounts: *accounts, Quotes: *quotes, Holdings: *holdings, Seed: *seed, HashCost: *cost}
	if err := spec.Validate(); err != nil {
		return loadFlags.UsageError(err)
	}
	if err := checkDSN(*db); err != nil {
		return err
	}
	if err := needDB(*db, true, ""); err != nil {
		return err
	}
	st, err := store.Open(ctx, *db)
	if err != nil {
		return fmt.Errorf("opening %s: %w", dsn.Redact(*db), err)
	}
	defer st.Close()
	w, tty := pf.Writer()
	p := progress.NewCount(w, tty, "load", "rows")
	start := time.Now()
	err = st.Load(ctx, spec, p.Update)
	p.End()
	if err != nil {
		return fmt.Errorf("loading %s: %w", dsn.Redact(*db), err)
	}
	fmt.Fprintf(os.Stderr, "loaded %d accounts, %d holdings, %d orders, %d quotes into %s in %s\n",
		spec.Accounts, spec.Accounts*spec.Holdings, spec.Accounts*spec.Holdings, spec.Quotes,
		dsn.Redact(*db), time.Since(start).Round(time.Millisecond))
	return nil
}

// loadFlags names the flags that set dataset.Spec's fields.
var loadFlags = cliflag.Names{"Accounts": "accounts", "Quotes": "quotes", "Holdings": "holdings", "HashCost": "hash-cost"}

func runReset(ctx context.Context, args []string) error {
	fs := cliflag.NewFlagSet("tradebench reset", "[--db DSN]")
	db := fs.String("db", defaultDB, dbHelp)
	cliflag.SetHelp(fs, helpText("reset.txt"))
	if err := cliflag.Parse(fs, args, false); err != nil {
		return err
	}
	if err := checkDSN(*db); err != nil {
		return err
	}
	if err := needDB(*db, false, "load it first: tradebench load --db "+dsn.Redact(*db)); err != nil {
		return err
	}
	st, err := store.Open(ctx, *db)
	if err != nil {
		return fmt.Errorf("opening %s: %w", dsn.Redact(*db), err)
	}
	defer st.Close()
	start := time.Now()
	if err := st.Reset(ctx); err != nil {
		return loadHint(fmt.Errorf("resetting %s: %w", dsn.Redact(*db), err), *db, false)
	}
	fmt.Fprintf(os.Stderr, "reset %s in %s\n", dsn.Redact(*db), time.Since(start).Round(time.Millisecond))
	return nil
}

// loadHint adds to a store.ErrNotLoaded how to load the database db.
func loadHint(err error, db string, alsoServe bool) error {
	if !errors.Is(err, store.ErrNotLoaded) {
		return err
	}
	hint := fmt.Sprintf("load it first: tradebench load --db %s", dsn.Redact(db))
	if alsoServe {
		hint += " (or start with --load-if-empty)"
	}
	return fmt.Errorf("%w; %s", err, hint)
}
