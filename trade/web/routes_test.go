package web

import (
	"maps"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/trade"
)

// TestRoutesCoverTheTables keeps the metrics' route labels in step with the routing tables: a
// page added to a table without a label would be counted as "other".
func TestRoutesCoverTheTables(t *testing.T) {
	h, err := New(struct{ trade.Service }{}, Options{}) // the tables only; no request is served
	if err != nil {
		t.Fatal(err)
	}
	a := h.(*app)
	if got, want := slices.Sorted(maps.Keys(a.routes)), slices.Sorted(slices.Values(tradePaths)); !slices.Equal(got, want) {
		t.Errorf("/trade/ routes %v, labels %v", got, want)
	}
	if got, want := slices.Sorted(maps.Keys(a.dtAction)), slices.Sorted(slices.Values(dayTraderActionNames)); !slices.Equal(got, want) {
		t.Errorf("DayTrader actions %v, labels %v", got, want)
	}
	if got, want := slices.Sorted(maps.Keys(a.jsf)), slices.Sorted(slices.Values(jsfPaths)); !slices.Equal(got, want) {
		t.Errorf("JSF pages %v, labels %v", got, want)
	}
}

func TestRoute(t *testing.T) {
	routes := Routes()
	for _, c := range []struct{ url, body, want string }{
		{"/trade/home", "", "/trade/home"},
		{"/trade/", "", "/"},
		{"/daytrader/app?action=portfolio", "", "/daytrader/app?action=portfolio"},
		{"/daytrader/app", "action=login&uid=uid:0", "/daytrader/app?action=login"},
		{"/daytrader/app?action=nosuch", "", "/daytrader/app?action=(unknown)"},
		{"/daytrader/rest/quotes/s:1,s:2", "", "/daytrader/rest/quotes"},
		{"/daytrader/quote.faces", "", "/daytrader/quote.faces"},
		{"/no/such/page/12345", "", "other"},
	} {
		r := httptest.NewRequest("GET", c.url, nil)
		if c.body != "" {
			r = httptest.NewRequest("POST", c.url, strings.NewReader(c.body))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		r.ParseForm() // as the handler does before Route is asked
		got := Route(r)
		if got != c.want {
			t.Errorf("Route(%s %s) = %q, want %q", c.url, c.body, got, c.want)
		}
		if !slices.Contains(routes, got) {
			t.Errorf("Route(%s) = %q is not in Routes()", c.url, got)
		}
	}
}
