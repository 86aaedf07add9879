package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/gctune"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/internal/testing/netfault"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/orders"
	"github.com/tradebench/tradebench/trade/remote"
	"github.com/tradebench/tradebench/trade/store"
	"github.com/tradebench/tradebench/trade/web"
)

func smallSpec(accounts, quotes int) *store.LoadSpec {
	s := dataset.DefaultSpec()
	s.Accounts, s.Quotes = accounts, quotes
	return &s
}

func startTest(t testing.TB, accounts, quotes int) *Server {
	t.Helper()
	cfg := DefaultConfig()
	cfg.DB = "sqlite:" + filepath.Join(t.TempDir(), "serve.db")
	cfg.Listen = "127.0.0.1:0"
	cfg.LoadIfEmpty = smallSpec(accounts, quotes)
	cfg.Logger = slog.New(slog.DiscardHandler)
	s, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func newClient() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, Timeout: 30 * time.Second}
}

func get(t testing.TB, c *http.Client, u string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	return do(t, c, req)
}

func do(t testing.TB, c *http.Client, req *http.Request) (int, string) {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// TestServeOverTCP runs the monolith as `tradebench serve` does and drives it over loopback.
func TestServeOverTCP(t *testing.T) {
	s := startTest(t, 50, 150)
	if !strings.HasPrefix(s.Addr(), "127.0.0.1:") || strings.HasSuffix(s.Addr(), ":0") {
		t.Fatalf("bound address %q", s.Addr())
	}
	c := newClient()
	code, body := get(t, c, s.URL()+"/daytrader/app?action=login&uid=uid:0&passwd=xxx")
	if code != 200 || !strings.Contains(body, "Welcome uid:0") || !strings.Contains(body, "of Holdings: </b>5</td>") {
		t.Fatalf("login over TCP: %d\n%s", code, body)
	}
	code, body = get(t, c, s.URL()+"/daytrader/app?action=buy&symbol=s:1&quantity=100")
	if code != 200 || !strings.Contains(body, "has been submitted") {
		t.Fatalf("buy over TCP: %d\n%s", code, body)
	}
	code, body = get(t, c, s.URL()+"/trade/config")
	for _, want := range []string{"<th>storage</th><td>sqlite:", "<th>access mode</th><td>inprocess</td>", "<th>orders mode</th><td>sync</td>",
		"<th>market summary interval</th><td>1m0s</td>", "<th>orders cap</th><td>100</td>", "<th>GOMAXPROCS</th>", "50 accounts, 150 quotes"} {
		if !strings.Contains(body, want) {
			t.Errorf("config page lacks %q:\n%s", want, body)
		}
	}
	// the same configuration for programs: snake_case keys, numbers as numbers, per component
	code, body = get(t, c, s.URL()+"/trade/config.json")
	var conf map[string]any
	if err := json.Unmarshal([]byte(body), &conf); code != 200 || err != nil {
		t.Fatalf("config.json: %d %v\n%s", code, err, body)
	}
	checkKeys(t, "", conf)
	num := func(path ...string) any {
		var v any = conf
		for _, k := range path {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		return v
	}
	for _, w := range []struct {
		path []string
		want any
	}{
		{[]string{"store", "data_set", "accounts"}, 50.0}, {[]string{"store", "data_set", "quotes"}, 150.0},
		{[]string{"web", "orders_cap"}, 100.0}, {[]string{"services", "market_summary_interval_seconds"}, 60.0},
		{[]string{"orders", "mode"}, "sync"}, {[]string{"access", "mode"}, "inprocess"}, {[]string{"store", "kind"}, "sqlite"},
		{[]string{"runtime", "gomaxprocs"}, float64(runtime.GOMAXPROCS(0))},
		{[]string{"runtime", "gogc"}, float64(gctune.Current())}, // what the test process runs with
	} {
		if got := num(w.path...); got != w.want {
			t.Errorf("config.json %s = %#v, want %#v", strings.Join(w.path, "."), got, w.want)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Done():
	default:
		t.Fatal("Done not closed after Close")
	}
	if _, err := http.Get(s.URL() + "/trade/login"); err == nil {
		t.Fatal("server still answers after Close")
	}
}

// TestShutdownUnderLoad: shutting down while clients keep requesting never cuts a response
// short: every request either gets its whole page or is refused at the connection.
func TestShutdownUnderLoad(t *testing.T) {
	s := startTest(t, 20, 20)
	var complete, refused atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 8 {
		wg.Go(func() {
			c := newClient()
			for i := 0; i < 2000; i++ { // bounded
				select {
				case <-stop:
					return
				default:
				}
				resp, err := c.Get(s.URL() + "/trade/login")
				if err != nil {
					refused.Add(1)
					continue
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != 200 || !strings.HasSuffix(strings.TrimSpace(string(body)), "</html>") {
					t.Errorf("cut or failed response during shutdown: status %d, err %v, %d bytes", resp.StatusCode, err, len(body))
					return
				}
				complete.Add(1)
			}
		})
	}
	for complete.Load() < 50 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
	if err := s.Close(); err != nil { // idempotent
		t.Fatal(err)
	}
	t.Logf("%d complete responses, %d refused connections", complete.Load(), refused.Load())
}

func TestStartEmptyDatabaseSaysSo(t *testing.T) {
	cfg := DefaultConfig()
	cfg.DB = "sqlite:" + filepath.Join(t.TempDir(), "empty.db")
	cfg.Listen = "127.0.0.1:0"
	_, err := Start(context.Background(), cfg)
	if !errors.Is(err, store.ErrNotLoaded) || !strings.Contains(err.Error(), cfg.DB) {
		t.Fatalf("Start on an empty database: %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	for name, mod := range map[string]func(*Config){
		"DB":                        func(c *Config) { c.DB = "mysql://x" },
		"Listen":                    func(c *Config) { c.Listen = "" },
		"Services.MarketSummaryTTL": func(c *Config) { c.Services.MarketSummaryTTL = -time.Second },
		"Web.OrdersLimit":           func(c *Config) { c.Web.OrdersLimit = -1 },
		"Web.OrdersLimit ":          func(c *Config) { c.Web.OrdersLimit = trade.MaxOrdersLimit + 1 },
		"Web.SessionTTL ":           func(c *Config) { c.Web.SessionTTL = -time.Minute },
		"Services.HashCost":         func(c *Config) { c.Services.HashCost = 99 },
		"Web.SessionTTL":            func(c *Config) { c.Web.SessionTTL = time.Second },
		"Services.LoginMaxFailures": func(c *Config) { c.Services.LoginMaxFailures = -1 },
		"Remote.Timeout":            func(c *Config) { c.Remote.Timeout = -time.Second },
		"Orders.Concurrency":        func(c *Config) { c.Orders.Concurrency = -1 },
		"Orders.NATS":               func(c *Config) { c.Orders.NATS = "http://x" },
	} {
		c := DefaultConfig()
		mod(&c)
		err := c.Validate()
		var se *setting.Error
		if !errors.As(err, &se) || se.Field != strings.TrimSpace(name) {
			t.Errorf("%s: Validate() = %v, want a *setting.Error naming the field (the command line maps it to its flag)", name, err)
		}
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestConfigDefaultsOnce: a zero setting is its default, filled in one place (SetDefaults) and
// never refused — a zero OrdersLimit is the default cap, not "must be between 1 and …" as
// Validate once said while accepting it — and DefaultConfig is those same defaults. An orders
// cap above what the service returns (trade.MaxOrdersLimit) is refused, since the account
// page would say it shows every order when it shows fewer. Mutants: Validate not filling the
// defaults first refuses the zero HashCost; the old bound of 100000 accepts 1001.
func TestConfigDefaultsOnce(t *testing.T) {
	c := Config{DB: "sqlite:x.db", Listen: "127.0.0.1:0"}
	if err := c.Validate(); err != nil {
		t.Fatalf("a config of zero settings: %v", err)
	}
	c.SetDefaults()
	d := DefaultConfig()
	if c.Web.OrdersLimit != trade.DefaultOrdersLimit || c.Services.HashCost != dataset.DefaultHashCost || c.Web.SessionTTL != web.DefaultSessionTTL ||
		d.Web.OrdersLimit != c.Web.OrdersLimit || d.Services.HashCost != c.Services.HashCost || d.Web.SessionTTL != c.Web.SessionTTL ||
		c.Access != remote.InProcess || c.Orders.Mode != orders.Sync || c.Orders.Concurrency != orders.DefaultConcurrency {
		t.Fatalf("defaults: %+v\nDefaultConfig: %+v", c, d)
	}
	c.Web.OrdersLimit = trade.MaxOrdersLimit
	if err := c.Validate(); err != nil {
		t.Errorf("the service's own maximum as the cap: %v", err)
	}
	c.Web.OrdersLimit = trade.MaxOrdersLimit + 1
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "between 1 and 1000") {
		t.Errorf("a cap above the service's maximum: %v", err)
	}
}

// benchPage measures requests per second of one page with parallel logged-in clients over
// real loopback HTTP against the full monolith (SQLite).
func benchPage(b *testing.B, path string) {
	b.Run("inprocess", func(b *testing.B) { benchPageOn(b, startTest(b, 1000, 500), path) })
	b.Run("rest", func(b *testing.B) {
		s := startTest(b, 1000, 500)
		if err := s.Access().Set(remote.REST); err != nil {
			b.Fatal(err)
		}
		benchPageOn(b, s, path)
	})
	// every request checks its session against the database (no reuse of the last second's)
	b.Run("rest-check-every-request", func(b *testing.B) {
		cfg := DefaultConfig()
		cfg.DB, cfg.Listen, cfg.LoadIfEmpty = "sqlite:"+filepath.Join(b.TempDir(), "serve.db"), "127.0.0.1:0", smallSpec(1000, 500)
		cfg.Logger, cfg.Access, cfg.Web.SessionCheckInterval = slog.New(slog.DiscardHandler), remote.REST, -1
		s, err := Start(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		benchPageOn(b, s, path)
	})
}

func benchPageOn(b *testing.B, s *Server, path string) {
	var next atomic.Int64
	b.SetParallelism(4) // 4 × GOMAXPROCS clients
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		c := newClient()
		uid := "uid:" + strconv.FormatInt(next.Add(1)%1000, 10)
		resp, err := c.PostForm(s.URL()+"/trade/login", url.Values{"uid": {uid}, "passwd": {"xxx"}})
		if err != nil {
			b.Error(err)
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		for pb.Next() {
			resp, err := c.Get(s.URL() + path)
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Errorf("%s: status %d", path, resp.StatusCode)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
}

func BenchmarkQuotesPage(b *testing.B) { benchPage(b, "/trade/quotes?symbols=s:1,s:2,s:3,s:4,s:5") }
func BenchmarkHomePage(b *testing.B)   { benchPage(b, "/trade/home") }
func BenchmarkDayTraderQuotes(b *testing.B) {
	benchPage(b, "/daytrader/app?action=quotes&symbols=s:1,s:2,s:3,s:4,s:5")
}

// A process whose services host's listener dies says so: Failed is closed and Err names the
// endpoint (a bsl-only process then exits instead of sitting there unreachable). Close alone
// does not close Failed. Catches a host that never closes its Failed (checked by hand: "Failed
// not closed a minute after the services host's listener died").
func TestFailedWhenHostListenerDies(t *testing.T) {
	s := startTest(t, 10, 20)
	select {
	case <-s.Failed():
		t.Fatal("Failed closed while everything serves")
	default:
	}
	if err := netfault.KillListener(s.Host().GRPCAddr()); errors.Is(err, netfault.ErrUnsupported) {
		t.Skip(err)
	} else if err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Failed():
	case <-time.After(time.Minute): // only so a broken server fails instead of hanging
		t.Fatal("Failed not closed a minute after the services host's listener died")
	}
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), "gRPC server") {
		t.Fatalf("Err() = %v, want it to name the gRPC server", err)
	}

	ok := startTest(t, 10, 20)
	ok.Close()
	select {
	case <-ok.Failed():
		t.Fatal("Close closed Failed")
	default:
	}
}

// checkKeys fails on a key of the configuration that is not snake_case (a key for people, like
// "Go version", instead of one for programs).
func checkKeys(t *testing.T, at string, v any) {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		for k, sub := range v {
			if !snake.MatchString(k) {
				t.Errorf("config.json key %q at %q is not snake_case", k, at)
			}
			checkKeys(t, at+"."+k, sub)
		}
	case []any:
		for _, sub := range v {
			checkKeys(t, at+"[]", sub)
		}
	}
}

var snake = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
