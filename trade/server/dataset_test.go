package server

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/remote"
	"github.com/tradebench/tradebench/trade/web"
)

// contiguous counts ids 0…n-1 for any n, near powers of two too, and stops at the first error
// that is not "not found".
func TestContiguous(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 1000, 1 << 16, 1<<16 + 1, 500_000} {
		calls := 0
		got, err := contiguous(func(i int) error {
			calls++
			if i < n {
				return nil
			}
			return trade.ErrNotFound
		})
		if err != nil || got != n {
			t.Errorf("n=%d: got %d, %v", n, got, err)
		}
		if calls > 2*40 {
			t.Errorf("n=%d: %d lookups", n, calls)
		}
	}
	down := errors.New("connection refused")
	if got, err := contiguous(func(i int) error {
		if i < 10 {
			return nil
		}
		return down
	}); !errors.Is(err, down) || got != 0 {
		t.Errorf("a host that stops answering: %d, %v", got, err)
	}
}

// TestRemoteWebTierReportsTheDataSet: a web tier without a database (the test bed's, the split
// deployment's) says in config.json how many accounts and quotes its services host holds, as
// the monolith does under store, so a drive against it sizes its scenario; its config page shows
// it. Before, a drive through it logged in as uid:0…uid:499999 and failed its preflight (401).
// Mutant: server-remote-data-set-unreported (Describe leaves access.data_set out).
func TestRemoteWebTierReportsTheDataSet(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Roles, cfg.LoadIfEmpty = Roles{BSL: true}, smallSpec(37, 101)
	cfg.DB, cfg.Logger = "sqlite:"+filepath.Join(t.TempDir(), "st.db"), slog.New(slog.DiscardHandler)
	cfg.BSLListen, cfg.BSLGRPCListen = "127.0.0.1:0", "127.0.0.1:0"
	cfg.ServiceToken = "data-set-test-token-0123456789abcdef"
	bsl, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer bsl.Close()
	wcfg := DefaultConfig()
	wcfg.Roles, wcfg.DB, wcfg.Listen, wcfg.Logger = Roles{Web: true}, "", "127.0.0.1:0", cfg.Logger
	wcfg.Access, wcfg.BSLGRPC, wcfg.ServiceToken = remote.GRPC, bsl.Host().Info().GRPCAddr, cfg.ServiceToken
	w, err := Start(context.Background(), wcfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	c := newClient()
	code, body := get(t, c, w.URL()+"/trade/config.json")
	var doc web.Configuration
	if err := json.Unmarshal([]byte(body), &doc); code != 200 || err != nil {
		t.Fatalf("config.json: %d %v\n%s", code, err, body)
	}
	if doc.Store != nil || doc.Access == nil || doc.Access.DataSet == nil || doc.Access.DataSet.Accounts != 37 || doc.Access.DataSet.Quotes != 101 {
		t.Fatalf("a remote web tier's config.json: store %+v, access %+v; want the services host's 37 accounts and 101 quotes under access",
			doc.Store, doc.Access)
	}
	if _, page := get(t, c, w.URL()+"/trade/config"); !strings.Contains(page, "37 accounts, 101 quotes (the services host") {
		t.Errorf("the config page does not show the data set:\n%s", page)
	}
}
