package driver

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/setting"
)

// TestLiveSettingsChecked: the live views' settings are checked by the library, each error
// naming its Config field, and a drive whose endpoint cannot listen sends no request.
// Mutants: skipping checkLive in Prepare fails the bad-address cases; starting the load before
// the live views fails "no request".
func TestLiveSettingsChecked(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	base := Config{URL: srv.URL + "/", Phases: Phases{Users: 1, Duration: time.Second}}
	for _, c := range []struct {
		field string
		edit  func(*Config)
	}{
		{"MetricsListen", func(c *Config) { c.MetricsListen = "9465" }},
		{"Dashboard", func(c *Config) { c.Dashboard = "localhost" }},
		{"Dashboard", func(c *Config) { c.MetricsListen, c.Dashboard = "127.0.0.1:9465", "127.0.0.1:9465" }},
		{"LiveLinger", func(c *Config) { c.MetricsListen, c.LiveLinger = "127.0.0.1:0", -time.Second }},
		{"LiveLinger", func(c *Config) { c.Dashboard, c.LiveLinger = "127.0.0.1:0", time.Hour }},
		{"MetricsListen", func(c *Config) { c.MetricsListen = busy.Addr().String() }},
		{"Dashboard", func(c *Config) { c.Dashboard = busy.Addr().String() }},
	} {
		cfg := base
		c.edit(&cfg)
		_, err := Drive(context.Background(), cfg, HTTP)
		var se *setting.Error
		if !errors.As(err, &se) || se.Field != c.field {
			t.Errorf("%+v: error %v, want one naming %s", cfg, err, c.field)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests sent by drives that could not start", n)
	}
}
