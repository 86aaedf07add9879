package web_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tradebench/tradebench/internal/testing/pgtest"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/internal/webtest"
	"github.com/tradebench/tradebench/trade/store"
	_ "github.com/tradebench/tradebench/trade/store/all"
	"github.com/tradebench/tradebench/trade/web"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestPagesSQLite runs the acceptance suite on the real in-process service over a SQLite file.
func TestPagesSQLite(t *testing.T) {
	runSuite(t, "sqlite:"+filepath.Join(t.TempDir(), "web.db"))
}

// TestPagesPostgres runs it over a fresh PostgreSQL database (see internal/testing/pgtest).
func TestPagesPostgres(t *testing.T) {
	runSuite(t, pgtest.DSN(t))
}

func runSuite(t *testing.T, dsn string) {
	svc, spec := webtest.Loaded(t, dsn)
	st := svc.Store()
	webtest.Run(t, webtest.Fixture{
		Service: svc, Accounts: spec.Accounts, Quotes: spec.Quotes, Holdings: spec.Holdings, Password: dataset.Password,
		Options: web.Options{OrdersLimit: 100, Config: func() *web.Configuration {
			return &web.Configuration{Store: &web.ConfigStore{DSN: st.Kind()}, Access: &web.ConfigAccess{Mode: "inprocess"}}
		}},
	})
}

// faulty is the real service with two faults injected: a panic and a system error. It tests
// the web tier's handling of faults, not the service.
type faulty struct{ trade.Service }

func (faulty) GetMarketSummary(context.Context) (trade.MarketSummary, error) {
	panic("injected panic")
}

func (faulty) GetQuotes(context.Context, []string) ([]trade.Quote, error) {
	return nil, errors.New("injected fault: connection to db.internal:5432 refused")
}

// smallStore is a SQLite file loaded with 5 accounts and 5 quotes, closed when the test ends.
func smallStore(t testing.TB) store.Store {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "web.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	spec := dataset.DefaultSpec()
	spec.Accounts, spec.Quotes = 5, 5
	if err := st.Load(ctx, spec, nil); err != nil {
		t.Fatal(err)
	}
	return st
}

func TestSystemFaults(t *testing.T) {
	st := smallStore(t)
	var logBuf bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logBuf.Write(p)
	}), nil))
	h, err := web.New(faulty{business.New(st, business.Options{})}, web.Options{Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	get := func(path string) (int, string) {
		resp, err := c.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := get("/daytrader/app?action=login&uid=uid:0&passwd=xxx"); code != 500 {
		t.Fatalf("home with a panicking market summary: status %d, want 500", code)
	}
	for _, p := range []string{"/daytrader/app?action=mksummary", "/trade/quotes?symbols=s:1", "/daytrader/rest/quotes/s:1"} {
		code, body := get(p)
		if code != http.StatusInternalServerError {
			t.Errorf("%s: status %d, want 500", p, code)
		}
		if strings.Contains(body, "injected") || strings.Contains(body, "db.internal") || strings.Contains(body, "goroutine") {
			t.Errorf("%s: the fault's details leaked to the page:\n%s", p, body)
		}
	}
	// the server still works after a panic
	if code, body := get("/daytrader/app?action=account"); code != 200 || !strings.Contains(body, "<td>uid:0</td>") {
		t.Fatalf("account after faults: %d", code)
	}
	mu.Lock()
	logs := logBuf.String()
	mu.Unlock()
	for _, want := range []string{"injected panic", "stack=", "db.internal:5432 refused", "path=/trade/quotes"} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
