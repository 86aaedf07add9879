// Package testenv gives the remote transports' tests the real thing to talk to: the in-process
// trade service on a freshly loaded SQLite database in the test's temporary directory.
package testenv

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/store"
	_ "github.com/tradebench/tradebench/trade/store/all" // the sqlite driver
)

// Spec is the small data set the tests load: enough quotes (> 200) for a market summary with
// index quotes s:100…s:199.
var Spec = store.LoadSpec{Accounts: 20, Quotes: 250, Holdings: 3, Seed: 1, HashCost: dataset.DefaultHashCost}

// Symbols are quotes of Spec.
var Symbols = []string{dataset.Symbol(0), dataset.Symbol(1), dataset.Symbol(101), dataset.Symbol(150)}

// User and Password are a loaded user.
var (
	User     = dataset.UserID(0)
	Password = dataset.Password
)

// LoginMaxFailures is the services' login throttle in these tests (the server's default).
const LoginMaxFailures = 20

// Service opens a fresh SQLite database, loads Spec and returns the synchronous in-process
// service on it (market summary not cached, so every call reaches the store).
func Service(tb testing.TB) *business.Service {
	tb.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, "sqlite:"+filepath.Join(tb.TempDir(), "trade.db"))
	if err != nil {
		tb.Fatalf("open sqlite: %v", err)
	}
	tb.Cleanup(func() { st.Close() })
	if err := st.Load(ctx, Spec, nil); err != nil {
		tb.Fatalf("load %v: %v", Spec, err)
	}
	opts := business.DefaultOptions()
	opts.MarketSummaryTTL = 0
	opts.Seed = 7
	opts.LoginMaxFailures = LoginMaxFailures
	return business.New(st, opts)
}
