package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/server"
	"github.com/tradebench/tradebench/trade/store"
)

func init() {
	register(&command{name: "serve", summary: "run the StockTrader web application (monolith: web + services + orders)", run: runServe})
}

func runServe(ctx context.Context, args []string) error {
	def := server.DefaultConfig()
	fs := newFlagSet("serve", "[flags]\n\n"+
		"Serves the StockTrader brokerage application: the pages under /trade/ and the\n"+
		"Trade/DayTrader contract under /daytrader/app, over one database, in one process\n"+
		"(in-process services, synchronous orders). Load the database first with\n"+
		"'tradebench load --db DSN', or pass --load-if-empty for a quick start.\n"+
		"Stops gracefully on SIGINT or SIGTERM.\n\n"+
		"Session cookies are signed with $TRADEBENCH_SESSION_SECRET (give every web process\n"+
		"behind one load balancer the same value); unset, a random secret per process.")
	db := fs.String("db", def.DB, "database: sqlite:PATH or postgres://user:pass@host/dbname")
	listen := fs.String("listen", def.Listen, "address to serve HTTP on (host:port; port 0 picks a free one)")
	msTTL := fs.Duration("market-summary-ttl", def.MarketSummaryTTL, "how long the market summary is cached; 0 computes it on every request")
	ordersLimit := fs.Int("orders-limit", def.OrdersLimit, "most orders shown on the account page")
	hashCost := fs.Int("hash-cost", def.HashCost, "bcrypt cost of new and changed passwords (4-31; higher makes login/register realistic but slow)")
	sessionTTL := fs.Duration("session-ttl", def.SessionTTL, "how long a login session lasts without activity")
	loadIfEmpty := fs.Bool("load-if-empty", false, "load a data set (sized by --accounts, --quotes, --holdings) if the database has never been loaded")
	spec := dataset.DefaultSpec()
	accounts := fs.Int("accounts", 1000, "with --load-if-empty: accounts to load")
	quotes := fs.Int("quotes", 500, "with --load-if-empty: quotes to load")
	holdings := fs.Int("holdings", spec.Holdings, "with --load-if-empty: holdings (and orders) per account")
	seed := fs.Int64("seed", spec.Seed, "with --load-if-empty: random seed of the data set")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}

	cfg := def
	cfg.DB, cfg.Listen = *db, *listen
	cfg.MarketSummaryTTL, cfg.OrdersLimit, cfg.HashCost, cfg.SessionTTL = *msTTL, *ordersLimit, *hashCost, *sessionTTL
	if *ordersLimit < 1 {
		return usageErrorf("--orders-limit must be at least 1, got %d", *ordersLimit)
	}
	if *sessionTTL <= 0 {
		return usageErrorf("--session-ttl must be positive, got %v", *sessionTTL)
	}
	if err := cfg.Validate(); err != nil {
		return usageErrorf("%v", err)
	}
	if *loadIfEmpty {
		spec.Accounts, spec.Quotes, spec.Holdings, spec.Seed = *accounts, *quotes, *holdings, *seed
		if err := spec.Validate(); err != nil {
			return usageErrorf("--load-if-empty: %v (see --accounts, --quotes, --holdings)", err)
		}
		cfg.LoadIfEmpty = &spec
		last := int64(-1)
		cfg.LoadProgress = func(done, total int64) {
			if pct := done * 10 / max(total, 1); pct != last {
				last = pct
				fmt.Fprintf(os.Stderr, "loading: %d%% (%d of %d rows)\n", pct*10, done, total)
			}
		}
	}
	if s := os.Getenv("TRADEBENCH_SESSION_SECRET"); s != "" {
		cfg.SessionSecret = []byte(s) // from the environment, not a flag: flags show in ps
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	cfg.Logger = log

	srv, err := server.Start(ctx, cfg)
	if err != nil {
		return err
	}
	log.Info("tradebench serving", "url", srv.URL()+"/trade/", "daytrader", srv.URL()+"/daytrader/app", "db", store.Redact(cfg.DB))
	select {
	case <-ctx.Done():
		log.Info("shutting down")
	case <-srv.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	serveErr := srv.Err()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return serveErr
}
