package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

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

// needDB checks a --db before anything opens it, so that a command that fails creates nothing
// (opening a SQLite path creates the file). Without create the SQLite file must exist: serving,
// resetting or auditing a database that is not there is bad input, not an empty database to
// leave behind. With create (load, serve --load-if-empty) its directory must exist — the
// default working directory is made, as 'run' makes it. PostgreSQL DSNs pass: the server says.
func needDB(db string, create bool, hint string) error {
	driver, target, err := dsn.Parse(db)
	if err != nil || driver != dsn.SQLite {
		return nil // checkDSN reports a bad DSN
	}
	path := strings.SplitN(target, "?", 2)[0]
	if path == ":memory:" || strings.HasPrefix(path, "file::memory:") {
		return nil
	}
	if !create {
		if _, err := os.Stat(path); err != nil {
			return cliflag.Errorf("--db %s: no such database; %s", dsn.Redact(db), hint)
		}
		return nil
	}
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if filepath.Clean(dir) == dataset.DefaultDir {
		return os.MkdirAll(dir, 0o755)
	}
	return cliflag.Errorf("--db %s: the directory %s does not exist", db, dir)
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
	p := newProgress(pf, "load")
	start := time.Now()
	err = st.Load(ctx, spec, p.update)
	p.finish()
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

// progress draws a bar on a terminal and plain lines every few seconds otherwise.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	label string
	tty   bool
	off   bool
	start time.Time
	last  time.Time
	drawn bool
}

func newProgress(pf *cliflag.Progress, label string) *progress {
	w, tty := pf.Writer()
	return &progress{w: w, label: label, tty: tty, off: w == nil, start: time.Now()}
}

func (p *progress) update(done, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.off || total <= 0 {
		return
	}
	now := time.Now()
	every := 5 * time.Second
	if p.tty {
		every = 100 * time.Millisecond
	}
	if now.Sub(p.last) < every && done < total {
		return
	}
	p.last = now
	frac := float64(done) / float64(total)
	elapsed := now.Sub(p.start).Round(100 * time.Millisecond)
	if !p.tty {
		fmt.Fprintf(p.w, "%s: %3.0f%% (%d of %d rows) %s\n", p.label, 100*frac, done, total, elapsed)
		return
	}
	const width = 30
	n := int(frac * width)
	bar := strings.Repeat("=", n) + strings.Repeat(" ", width-n)
	fmt.Fprintf(p.w, "\r%s [%s] %3.0f%% %d/%d rows %s ", p.label, bar, 100*frac, done, total, elapsed)
	p.drawn = true
}

func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprintln(p.w)
	}
}
