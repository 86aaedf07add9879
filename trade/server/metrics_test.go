package server

import (
	"net/url"
	"testing"

	"github.com/tradebench/tradebench/internal/metrics"
	"github.com/tradebench/tradebench/trade/remote"
)

// gathered is reg.Sum, failing the test on an error.
func gathered(t *testing.T, reg *metrics.Registry, name string, want map[string]string) float64 {
	t.Helper()
	n, err := reg.Sum(name, want)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestMetricsPerTransport switches the monolith's pages to each remote access mode and checks
// the metrics see it: the services host's calls per transport, its SOAP and REST requests by
// route, and the pages' requests by route; then a buy and a sell count as placed and final.
func TestMetricsPerTransport(t *testing.T) {
	s := startTest(t, 30, 120)
	reg := s.Metrics()
	c := newClient()
	for _, mode := range []string{remote.SOAP, remote.REST, remote.GRPC} {
		if code, body := post(t, c, s.URL()+"/trade/config", url.Values{"access": {mode}}); code != 200 {
			t.Fatalf("switch to %s: %d\n%s", mode, code, body)
		}
		if code, _ := get(t, c, s.URL()+"/daytrader/app?action=login&uid=uid:3&passwd=xxx"); code != 200 {
			t.Fatalf("login in %s mode: %d", mode, code)
		}
		if n := gathered(t, reg, "tradebench_service_calls_total", map[string]string{"transport": mode, "op": "login"}); n != 1 {
			t.Errorf("service_calls_total{transport=%s,op=login} = %v, want 1", mode, n)
		}
	}
	if n := gathered(t, reg, "tradebench_requests_total", map[string]string{"route": "/soap/trade", "code": "200"}); n < 1 {
		t.Errorf("no SOAP requests counted on the services host: %v", n)
	}
	if n := gathered(t, reg, "tradebench_requests_total", map[string]string{"route": "/api/v1/"}); n < 1 {
		t.Errorf("no REST requests counted on the services host: %v", n)
	}
	if n := gathered(t, reg, "tradebench_requests_total", map[string]string{"route": "/daytrader/app?action=login", "code": "200"}); n != 3 {
		t.Errorf("requests_total{route=login,code=200} = %v, want 3", n)
	}
	if n := gathered(t, reg, "tradebench_request_duration_seconds", map[string]string{"route": "/trade/config"}); n != 3 {
		t.Errorf("config page posts timed: %v, want 3", n)
	}

	if code, body := get(t, c, s.URL()+"/daytrader/app?action=buy&symbol=s:1&quantity=2"); code != 200 {
		t.Fatalf("buy: %d\n%.300s", code, body)
	}
	if n := gathered(t, reg, "tradebench_orders_placed_total", map[string]string{"mode": "sync"}); n != 1 {
		t.Errorf("orders placed %v, want 1", n)
	}
	if n := gathered(t, reg, "tradebench_orders_completed_total", map[string]string{"mode": "sync"}); n != 1 {
		t.Errorf("orders completed %v, want 1", n)
	}
	if n := gathered(t, reg, "tradebench_order_lag_seconds", map[string]string{"mode": "sync"}); n != 1 {
		t.Errorf("order lag observations %v, want 1", n)
	}
}
