package webtest

import (
	"context"
	"testing"
	"time"

	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/store"
	_ "github.com/tradebench/tradebench/trade/store/all" // the sqlite and postgres drivers
)

// Loaded opens dsn, loads the suite's data set into it (50 accounts, 150 quotes: s:100… exist,
// so the market index is not empty) and returns the synchronous in-process service on it and
// the spec loaded. The store is closed when the test ends.
func Loaded(t *testing.T, dsn string) (*business.Service, store.LoadSpec) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	spec := dataset.DefaultSpec()
	spec.Accounts, spec.Quotes = 50, 150
	if err := st.Load(ctx, spec, nil); err != nil {
		t.Fatal(err)
	}
	return business.New(st, business.Options{MarketSummaryTTL: time.Minute, HashCost: dataset.DefaultHashCost}), spec
}
