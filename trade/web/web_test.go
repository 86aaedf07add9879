package web_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/inprocess"
	"github.com/tradebench/tradebench/trade/store"
	_ "github.com/tradebench/tradebench/trade/store/sqlite"
	"github.com/tradebench/tradebench/trade/web"
	"github.com/tradebench/tradebench/trade/web/webtest"
)

// TestPages runs the acceptance suite on the real in-process service over a real SQLite file.
func TestPages(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "web.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	spec := dataset.DefaultSpec()
	spec.Accounts, spec.Quotes = 50, 150 // s:100… exist, so the market index is not empty
	if err := st.Load(ctx, spec, nil); err != nil {
		t.Fatal(err)
	}
	svc := inprocess.New(st, inprocess.Options{MarketSummaryTTL: time.Minute, HashCost: dataset.DefaultHashCost})
	webtest.Run(t, webtest.Fixture{
		Service: svc, Accounts: spec.Accounts, Quotes: spec.Quotes, Holdings: spec.Holdings, Password: dataset.Password,
		Options: web.Options{OrdersLimit: 100, Config: func() []web.Setting {
			return []web.Setting{{Name: "storage", Value: "sqlite"}, {Name: "access mode", Value: "inprocess"}}
		}},
	})
}
