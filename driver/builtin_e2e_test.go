package driver

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/server"
)

// startMonolith serves a small StockTrader data set on loopback.
func startMonolith(t *testing.T, accounts, quotes int) *server.Server {
	t.Helper()
	cfg := server.DefaultConfig()
	cfg.DB = "sqlite:" + filepath.Join(t.TempDir(), "e2e.db")
	cfg.Listen = "127.0.0.1:0"
	spec := dataset.DefaultSpec()
	spec.Accounts, spec.Quotes = accounts, quotes
	cfg.LoadIfEmpty = &spec
	s, err := server.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// The built-in scenarios, written against the DayTrader contract, run against tradebench's own
// monolith with zero errors: every check (page markers, "Welcome uid:N", "has been submitted")
// passes, and buysell sells the holding id it extracted from the portfolio page.
func TestBuiltinScenariosAgainstMonolith(t *testing.T) {
	s := startMonolith(t, 200, 100)
	for _, name := range builtinNames {
		t.Run(name, func(t *testing.T) {
			res := driveBuiltin(t, s.URL(), name, nil)
			if name == "stocktrader" {
				if n := res.Total.Pass; n != int64(4*builtinIterations[name]*19) {
					t.Errorf("stocktrader: %d transactions, want 19 per iteration", n)
				}
			}
			if name == "buysell" {
				if sell, _ := res.Transaction("sell"); sell.Pass != 4*5 {
					t.Errorf("buysell: %d sells, want 20", sell.Pass)
				}
			}
			for _, tx := range res.Transactions {
				t.Logf("%-16s pass %4d  p50 %6.2fms", tx.Name, tx.Pass, tx.P50Ms)
			}
		})
	}
}
