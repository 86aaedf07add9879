package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/testing/pgtest"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/audit"
	"github.com/tradebench/tradebench/trade/orders"
	"github.com/tradebench/tradebench/trade/remote"
	"github.com/tradebench/tradebench/trade/remote/host"
	"github.com/tradebench/tradebench/trade/web"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestParseRoles(t *testing.T) {
	for in, want := range map[string]Roles{
		"all": AllRoles, "web": {Web: true}, "bsl": {BSL: true}, "orders": {Orders: true},
		"web,bsl": {Web: true, BSL: true}, " bsl , orders ": {BSL: true, Orders: true},
	} {
		if got, err := ParseRoles(in); err != nil || got != want {
			t.Errorf("ParseRoles(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "db", "web,", "web;bsl"} {
		if _, err := ParseRoles(bad); err == nil {
			t.Errorf("ParseRoles(%q) accepted", bad)
		}
	}
}

func TestValidateRoles(t *testing.T) {
	base := DefaultConfig()
	for name, c := range map[string]func(*Config){
		"web soap without --bsl":      func(c *Config) { c.Roles, c.Access = Roles{Web: true}, remote.SOAP },
		"web grpc without --bsl-grpc": func(c *Config) { c.Roles, c.Access, c.BSL = Roles{Web: true}, remote.GRPC, "127.0.0.1:1" },
		"unknown access":              func(c *Config) { c.Access = "corba" },
		"orders alone, durable, no --nats": func(c *Config) {
			c.Roles, c.Orders.Mode = Roles{Orders: true}, orders.AsyncDurable
		},
		"bad orders mode": func(c *Config) { c.Orders.Mode = "async-pigeon" },
		"bsl without db":  func(c *Config) { c.Roles, c.DB = Roles{BSL: true}, "" },
	} {
		cfg := base
		c(&cfg)
		if err := cfg.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	web := base
	web.Roles, web.Access, web.BSL, web.DB = Roles{Web: true}, remote.REST, "127.0.0.1:1", ""
	if err := web.Validate(); err != nil {
		t.Errorf("a web-only remote tier needs no database: %v", err)
	}
}

// The config page switches the running web tier's access mode; config.json reports it; a bad
// mode is a 400 that changes nothing. After each switch the pages' calls reach the monolith's
// own services host over that mode's transport and over no other (in-process: none at all).
// Catches the mutant "Switch.Set keeps calling the in-process service and only relabels the
// mode" (checked by hand: "… pages in soap mode: 0 login and 0 getQuotes calls reached the host
// over soap …").
func TestSwitchAccessFromConfigPage(t *testing.T) {
	s := startTest(t, 30, 120)
	c := newClient()
	code, body := get(t, c, s.URL()+"/trade/config")
	if code != 200 || !strings.Contains(body, `<option value="grpc">`) || !strings.Contains(body, "business services host") {
		t.Fatalf("config page: %d\n%s", code, body)
	}
	for _, mode := range []string{remote.SOAP, remote.REST, remote.GRPC, remote.InProcess} {
		code, body = post(t, c, s.URL()+"/trade/config", url.Values{"access": {mode}})
		if code != 200 || !strings.Contains(body, "Access mode switched to "+mode) {
			t.Fatalf("switch to %s: %d\n%s", mode, code, body)
		}
		if got := configJSON(t, s).Access.Mode; got != mode {
			t.Fatalf("config.json access mode %q after switching to %s", got, mode)
		}
		calls := s.Host().Calls()
		before := hostCalls(calls)
		logins, quotes := calls.Count(mode, host.OpLogin), calls.Count(mode, host.OpGetQuotes)
		code, body = get(t, c, s.URL()+"/daytrader/app?action=login&uid=uid:3&passwd=xxx")
		if code != 200 || !strings.Contains(body, "Welcome uid:3") {
			t.Fatalf("login in %s mode: %d\n%s", mode, code, body)
		}
		code, body = get(t, c, s.URL()+"/daytrader/app?action=quotes&symbols=s:1,s:2")
		if code != 200 || !strings.Contains(body, "s:2") {
			t.Fatalf("quotes in %s mode: %d\n%s", mode, code, body)
		}
		after := hostCalls(calls)
		for tr := range after {
			if tr != mode && after[tr] != before[tr] {
				t.Fatalf("pages in %s mode: %d calls reached the host over %s (before %v, after %v)", mode, after[tr]-before[tr], tr, before, after)
			}
		}
		if mode != remote.InProcess {
			logins, quotes = calls.Count(mode, host.OpLogin)-logins, calls.Count(mode, host.OpGetQuotes)-quotes
			if logins != 1 || quotes < 1 {
				t.Fatalf("pages in %s mode: %d login and %d getQuotes calls reached the host over %s, want 1 and at least 1", mode, logins,
					quotes, mode)
			}
		}
	}
	code, body = post(t, c, s.URL()+"/trade/config", url.Values{"access": {remote.InProcess}})
	if code != 200 || !strings.Contains(body, "already inprocess") {
		t.Fatalf("switch to the current mode: %d\n%s", code, body)
	}
	code, body = post(t, c, s.URL()+"/trade/config", url.Values{"access": {"<corba>"}})
	if code != 400 || !strings.Contains(body, "not changed") || strings.Contains(body, "<corba>") {
		t.Fatalf("a bad mode: %d\n%s", code, body)
	}
	if got := s.Access().Mode(); got != remote.InProcess {
		t.Fatalf("mode %q after a refused switch", got)
	}
}

// hostCalls is how many calls reached a services host over each transport so far.
func hostCalls(c *host.Calls) map[string]int64 {
	return map[string]int64{remote.SOAP: c.Total(remote.SOAP), remote.REST: c.Total(remote.REST), remote.GRPC: c.Total(remote.GRPC)}
}

// Every order mode through the monolith's pages: a buy is submitted, and the order ends
// closed; the audit passes.
func TestOrderModesMonolith(t *testing.T) {
	for _, mode := range orders.Modes {
		t.Run(string(mode), func(t *testing.T) {
			dir := t.TempDir()
			cfg := DefaultConfig()
			cfg.DB = "sqlite:" + filepath.Join(dir, "serve.db")
			cfg.Listen = "127.0.0.1:0"
			cfg.LoadIfEmpty = smallSpec(30, 50)
			cfg.Logger = slog.New(slog.DiscardHandler)
			cfg.Orders.Mode, cfg.Orders.WorkDir = mode, dir
			s, err := Start(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			c := newClient()
			get(t, c, s.URL()+"/daytrader/app?action=login&uid=uid:1&passwd=xxx")
			ids := buyAndSell(t, c, s.URL())
			waitClosed(t, s.Store(), s.Service(), "uid:1", ids)
			auditPasses(t, s)
			if code, body := get(t, c, s.URL()+"/trade/config"); code != 200 || !strings.Contains(body, "<th>orders mode</th><td>"+string(mode)) {
				t.Fatalf("config page does not show the orders mode:\n%s", body)
			}
		})
	}
}

// The 2007 paper's distributed deployment on one machine, over PostgreSQL: a services host that
// places orders on the durable queue (its embedded NATS), a separate order processor on that
// broker, and two web tiers calling the host over SOAP and gRPC. Orders placed through either
// web tier are completed by the processor; the audit passes.
func TestSplitRoles(t *testing.T) {
	if testing.Short() {
		t.Skip("starts four tiers over PostgreSQL and NATS")
	}
	dsn := pgtest.DSN(t)
	dir := t.TempDir()
	log := slog.New(slog.DiscardHandler)
	start := func(mut func(*Config)) *Server {
		cfg := DefaultConfig()
		cfg.DB, cfg.Listen, cfg.Logger = dsn, "127.0.0.1:0", log
		cfg.Orders.WorkDir = dir
		cfg.ServiceToken = "split-roles-test-token-0123456789" // the tiers' shared secret
		mut(&cfg)
		s, err := Start(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	bsl := start(func(c *Config) {
		c.Roles, c.LoadIfEmpty, c.Orders.Mode = Roles{BSL: true}, smallSpec(30, 50), orders.AsyncDurable
		c.BSLListen, c.BSLGRPCListen = "127.0.0.1:0", "127.0.0.1:0" // not the fixed default ports
	})
	if bsl.Addr() != "" || bsl.Host() == nil || bsl.Orders().NATSURL == "" || bsl.Orders().Processor != nil {
		t.Fatalf("bsl role: web %q, host %v, nats %q, processor %v", bsl.Addr(), bsl.Host(), bsl.Orders().NATSURL, bsl.Orders().Processor)
	}
	in := bsl.Host().Info()
	webSOAP := start(func(c *Config) {
		c.Roles, c.DB, c.Access, c.BSL = Roles{Web: true}, "", remote.SOAP, in.HTTPAddr
	})
	webGRPC := start(func(c *Config) {
		c.Roles, c.DB, c.Access, c.BSLGRPC = Roles{Web: true}, "", remote.GRPC, in.GRPCAddr
	})
	if webSOAP.Store() != nil {
		t.Fatal("a remote web tier opened the database")
	}
	// orders placed before any processor runs wait on the durable queue (loosely coupled)
	c1 := newClient()
	get(t, c1, webSOAP.URL()+"/daytrader/app?action=login&uid=uid:1&passwd=xxx")
	ids1 := buyAndSell(t, c1, webSOAP.URL())
	for _, id := range ids1 {
		o, err := bsl.Store().Order(context.Background(), id)
		if err != nil || o.Status != trade.StatusOpen {
			t.Fatalf("order %d before a processor runs: %+v %v, want open", id, o, err)
		}
	}
	start(func(c *Config) {
		c.Roles, c.Orders.Mode, c.Orders.NATS = Roles{Orders: true}, orders.AsyncDurable, bsl.Orders().NATSURL
		c.Orders.NATSToken = bsl.Orders().NATSToken
		c.OrderHTTPListen, c.OrderGRPCListen = "127.0.0.1:0", "127.0.0.1:0"
	})
	c2 := newClient()
	get(t, c2, webGRPC.URL()+"/daytrader/app?action=login&uid=uid:2&passwd=xxx")
	ids2 := buyAndSell(t, c2, webGRPC.URL())
	waitClosed(t, bsl.Store(), bsl.Service(), "uid:1", ids1)
	waitClosed(t, bsl.Store(), bsl.Service(), "uid:2", ids2)
	auditPasses(t, bsl)
	if code, body := get(t, c2, webGRPC.URL()+"/trade/config"); code != 200 || !strings.Contains(body, "grpc → "+in.GRPCAddr) ||
		strings.Contains(body, "<th>storage</th>") || !strings.Contains(body, "set by the business services host") {
		t.Fatalf("remote web tier's config page:\n%s", body)
	}
}

var orderRe = regexp.MustCompile(`Order (?:<b>)?(\d+)`)
var sellRe = regexp.MustCompile(`action=sell(?:&amp;|&)holdingID=(\d+)`)

// buyAndSell buys twice and sells one holding through the DayTrader contract, returning the
// order ids.
func buyAndSell(t *testing.T, c *http.Client, base string) []int64 {
	t.Helper()
	var ids []int64
	orderID := func(what, body string) {
		m := orderRe.FindStringSubmatch(body)
		if m == nil || !strings.Contains(body, "has been submitted") {
			t.Fatalf("%s: no order submitted:\n%s", what, body)
		}
		id, _ := strconv.ParseInt(m[1], 10, 64)
		ids = append(ids, id)
	}
	for _, sym := range []string{"s:3", "s:4"} {
		code, body := get(t, c, base+"/daytrader/app?action=buy&symbol="+sym+"&quantity=10")
		if code != 200 {
			t.Fatalf("buy %s: %d\n%s", sym, code, body)
		}
		orderID("buy "+sym, body)
	}
	_, body := get(t, c, base+"/daytrader/app?action=portfolio")
	m := sellRe.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("portfolio has no sell link:\n%s", body)
	}
	code, body := get(t, c, base+"/daytrader/app?action=sell&holdingID="+m[1])
	if code != 200 {
		t.Fatalf("sell %s: %d\n%s", m[1], code, body)
	}
	orderID("sell "+m[1], body)
	return ids
}

type orderReader interface {
	Order(ctx context.Context, id int64) (trade.Order, error)
}

// waitClosed waits until every order is final (closed, or completed once its alert was shown).
func waitClosed(t *testing.T, st orderReader, svc trade.Service, uid string, ids []int64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for _, id := range ids {
		for {
			o, err := st.Order(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			if o.Status == trade.StatusClosed || o.Status == trade.StatusCompleted {
				if o.AccountID == 0 || o.Price <= 0 {
					t.Fatalf("order %d final but not applied: %+v", id, o)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("order %d still %s after 30 s", id, o.Status)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func auditPasses(t *testing.T, s *Server) {
	t.Helper()
	a, err := audit.Run(context.Background(), s.Store(), audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !a.Passed {
		t.Fatalf("audit failed: %v", a.Violations)
	}
}

func post(t testing.TB, c *http.Client, u string, form url.Values) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return do(t, c, req)
}

func configJSON(t *testing.T, s *Server) *web.Configuration {
	t.Helper()
	resp, err := http.Get(s.URL() + "/trade/config.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var c web.Configuration
	dec := json.NewDecoder(resp.Body)
	dec.DisallowUnknownFields() // every key the server writes is the type's
	if err := dec.Decode(&c); err != nil {
		t.Fatal(err)
	}
	return &c
}

// A web tier that shares its process with an order processor (but not the services) calls the
// services remotely and cannot switch to in-process: the processor's service completes orders,
// it does not place them.
func TestWebWithProcessorIsRemoteOnly(t *testing.T) {
	host := startTest(t, 20, 20)
	cfg := DefaultConfig()
	cfg.Roles, cfg.DB, cfg.Listen, cfg.Logger = Roles{Web: true, Orders: true}, host.cfg.DB, "127.0.0.1:0", slog.New(slog.DiscardHandler)
	cfg.Access, cfg.BSL = remote.REST, host.Host().HTTPAddr()
	cfg.OrderHTTPListen, cfg.OrderGRPCListen = "127.0.0.1:0", "127.0.0.1:0"
	s, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if m := s.Access().Modes(); slices.Contains(m, remote.InProcess) {
		t.Fatalf("modes %v offer inprocess", m)
	}
	if err := s.Access().Set(remote.InProcess); err == nil {
		t.Fatal("switched a web tier without the services to inprocess")
	}
	if _, body := get(t, newClient(), s.URL()+"/trade/config"); strings.Contains(body, "market summary interval") {
		t.Fatalf("the config page shows the services' settings:\n%s", body)
	}
}
