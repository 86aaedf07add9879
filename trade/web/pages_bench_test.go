package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/store"
	"github.com/tradebench/tradebench/trade/web"
)

// discard is a ResponseWriter that keeps the header and drops the body: the page's own work
// without a socket.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

// BenchmarkPageHandler serves each logged-in DayTrader page straight through the web handler
// (no HTTP server, no socket) on the in-process service over SQLite: the application's own CPU
// and allocations per page.
//
//	go test -run '^$' -bench PageHandler -benchmem ./trade/web/
func BenchmarkPageHandler(b *testing.B) {
	ctx := context.Background()
	st, err := store.Open(ctx, "sqlite:"+filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	spec := dataset.DefaultSpec()
	spec.Accounts, spec.Quotes = 5000, 1000
	if err := st.Load(ctx, spec, nil); err != nil {
		b.Fatal(err)
	}
	svc := business.New(st, business.Options{MarketSummaryTTL: time.Minute, HashCost: dataset.DefaultHashCost})
	h, err := web.New(svc, web.Options{})
	if err != nil {
		b.Fatal(err)
	}
	login := httptest.NewRequest(http.MethodPost, "/daytrader/app", strings.NewReader(url.Values{"action": {"login"}, "uid": {"uid:7"},
		"passwd": {"xxx"}}.Encode()))
	login.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, login)
	cookie := rec.Result().Cookies()[0]
	for _, p := range []struct{ name, path string }{
		{"quotes", "/daytrader/app?action=quotes&symbols=s:1,s:2,s:3,s:4,s:5"},
		{"home", "/daytrader/app?action=home"},
		{"portfolio", "/daytrader/app?action=portfolio"},
		{"account", "/daytrader/app?action=account"},
	} {
		b.Run(p.name, func(b *testing.B) {
			r := httptest.NewRequest(http.MethodGet, p.path, nil)
			r.Header.Set("Cookie", cookie.Name+"="+cookie.Value)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Code != 200 || !strings.Contains(rec.Body.String(), "Logoff") {
				b.Fatalf("%s: %d %.300s", p.path, rec.Code, rec.Body.String())
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r.Form = nil
				h.ServeHTTP(&discard{h: http.Header{}}, r)
			}
		})
	}
}
