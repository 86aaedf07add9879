// Package webtest is the web application's acceptance suite. It drives both URL contracts
// (/trade/ and /daytrader/) over real HTTP against a web handler built on any trade.Service, so
// the same checks run in every access mode: hand Run a service over a freshly loaded data set.
package webtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/web"
)

// Fixture is what the suite runs against. The data set must be freshly loaded: the suite buys,
// sells, registers and updates profiles, using each loaded user for one purpose only.
type Fixture struct {
	Service trade.Service // what the pages call
	// Truth is what the suite reads the expected data and the database's state from
	// (nil = Service): the in-process service, when Service is a remote client under test.
	Truth    trade.Service
	Accounts int    // loaded accounts uid:0…; at least MinAccounts
	Quotes   int    // loaded quotes s:0…; at least MinQuotes
	Holdings int    // holdings per loaded account; at least 2
	Password string // the loaded users' password ("xxx")
	// Options for web.New; Run sets Clock and SessionSecret.
	Options web.Options
}

// Minimum data set sizes the suite needs.
const (
	MinAccounts = 14
	MinQuotes   = 10
)

// env is one run of the suite.
type env struct {
	t      *testing.T
	f      Fixture
	srv    *httptest.Server
	offset atomic.Int64 // clock offset in nanoseconds, to expire sessions without waiting
	ctx    context.Context
}

// Run runs every check as a subtest.
func Run(t *testing.T, f Fixture) {
	if f.Accounts < MinAccounts || f.Quotes < MinQuotes || f.Holdings < 2 {
		t.Fatalf("webtest: data set too small: need %d accounts, %d quotes, 2 holdings each", MinAccounts, MinQuotes)
	}
	if f.Truth == nil {
		f.Truth = f.Service
	}
	e := &env{t: t, f: f, ctx: context.Background()}
	opts := f.Options
	opts.Clock = func() time.Time { return time.Now().Add(time.Duration(e.offset.Load())) }
	opts.SessionSecret = []byte("webtest session secret, 32 bytes")
	h, err := web.New(f.Service, opts)
	if err != nil {
		t.Fatal(err)
	}
	e.srv = httptest.NewServer(h)
	t.Cleanup(e.srv.Close)

	t.Run("LoginPages", e.testLoginPages)
	t.Run("NotLoggedIn", e.testNotLoggedIn)
	t.Run("DayTraderHome", e.testDayTraderHome)
	t.Run("PagesTrade", func(t *testing.T) { e.testPages(t, false, "uid:3") })
	t.Run("PagesDayTrader", func(t *testing.T) { e.testPages(t, true, "uid:12") })
	t.Run("BuySellDayTrader", func(t *testing.T) { e.testBuySell(t, true, "uid:1") })
	t.Run("BuySellTrade", func(t *testing.T) { e.testBuySell(t, false, "uid:2") })
	t.Run("ClosedOrderAlertsOnce", e.testAlerts)
	t.Run("UpdateProfileDayTrader", func(t *testing.T) { e.testUpdateProfile(t, true, "uid:7") })
	t.Run("UpdateProfileTrade", func(t *testing.T) { e.testUpdateProfile(t, false, "uid:8") })
	t.Run("Register", e.testRegister)
	t.Run("SentTwice", e.testSentTwice)
	t.Run("Logout", e.testLogout)
	t.Run("RESTQuotes", e.testRESTQuotes)
	t.Run("BadInput", e.testBadInput)
	t.Run("Isolation", e.testIsolation)
	t.Run("Sessions", e.testSessions)
	t.Run("CSRF", e.testCSRF)
}

// browser is one HTTP client with its own cookies.
type browser struct {
	t    *testing.T
	e    *env
	c    *http.Client
	last string // last body
}

func (e *env) browser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, e: e, c: &http.Client{Jar: jar, Timeout: 30 * time.Second}}
}

func (b *browser) do(req *http.Request) (int, string) {
	b.t.Helper()
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		b.t.Fatalf("%s %s: read: %v", req.Method, req.URL, err)
	}
	b.last = string(body)
	return resp.StatusCode, b.last
}

func (b *browser) get(path string) (int, string) {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, b.e.srv.URL+path, nil)
	return b.do(req)
}

func (b *browser) post(path string, form url.Values) (int, string) {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, b.e.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

// login logs in through the contract's login form and checks the home page answered.
func (b *browser) login(dt bool, uid, pw string) {
	b.t.Helper()
	var code int
	var body string
	if dt {
		code, body = b.post("/daytrader/app", url.Values{"action": {"login"}, "uid": {uid}, "passwd": {pw}})
	} else {
		code, body = b.post("/trade/login", url.Values{"uid": {uid}, "passwd": {pw}})
	}
	if code != http.StatusOK || !strings.Contains(body, "Welcome "+uid+"</p>") {
		b.t.Fatalf("login %s (dt=%v): status %d, body:\n%s", uid, dt, code, clip(body))
	}
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf returns the form token of the last /trade/ page.
func (b *browser) csrf() string {
	b.t.Helper()
	m := csrfRE.FindStringSubmatch(b.last)
	if m == nil {
		b.t.Fatalf("no csrf token on the page:\n%s", clip(b.last))
	}
	return m[1]
}

// page fetches a page by its /trade/ name in either contract.
func (b *browser) page(dt bool, name string) (int, string) {
	b.t.Helper()
	if dt {
		if name == "marketsummary" {
			name = "mksummary"
		}
		return b.get("/daytrader/app?action=" + name)
	}
	return b.get("/trade/" + name)
}

// clip shortens a page for a failure message to its main part.
func clip(s string) string {
	if i := strings.Index(s, "<main>"); i >= 0 {
		s = s[i:]
	}
	if i := strings.Index(s, "</main>"); i >= 0 {
		s = s[:i]
	}
	if len(s) > 1500 {
		return s[:1500] + "…"
	}
	return s
}

func must(t *testing.T, body string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(body, s) {
			t.Errorf("page lacks %q; page:\n%s", s, clip(body))
			return
		}
	}
}

func mustNot(t *testing.T, body string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if strings.Contains(body, s) {
			t.Errorf("page contains %q but must not; page:\n%s", s, clip(body))
			return
		}
	}
}

func wantStatus(t *testing.T, what string, got, want int) {
	t.Helper()
	if got != want {
		t.Errorf("%s: status %d, want %d", what, got, want)
	}
}

// snapshot is a user's state (and some quotes) as the service reports it.
type snapshot struct {
	Account  trade.Account
	Profile  trade.AccountProfile
	Holdings []trade.Holding
	Orders   []trade.Order
	Quotes   []trade.Quote
}

func (e *env) snap(t *testing.T, uid string, syms ...string) string {
	t.Helper()
	var s snapshot
	var err error
	if s.Account, err = e.f.Truth.GetAccountData(e.ctx, uid); err != nil {
		t.Fatalf("GetAccountData(%s): %v", uid, err)
	}
	if s.Profile, err = e.f.Truth.GetAccountProfileData(e.ctx, uid); err != nil {
		t.Fatal(err)
	}
	if s.Holdings, err = e.f.Truth.GetHoldings(e.ctx, uid); err != nil {
		t.Fatal(err)
	}
	if s.Orders, err = e.f.Truth.GetOrders(e.ctx, uid, 0); err != nil {
		t.Fatal(err)
	}
	if len(syms) > 0 {
		if s.Quotes, err = e.f.Truth.GetQuotes(e.ctx, syms); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := json.Marshal(s)
	return string(b)
}

func (e *env) account(t *testing.T, uid string) trade.Account {
	t.Helper()
	a, err := e.f.Truth.GetAccountData(e.ctx, uid)
	if err != nil {
		t.Fatalf("GetAccountData(%s): %v", uid, err)
	}
	return a
}

func (e *env) holdings(t *testing.T, uid string) []trade.Holding {
	t.Helper()
	hs, err := e.f.Truth.GetHoldings(e.ctx, uid)
	if err != nil {
		t.Fatal(err)
	}
	return hs
}

// finalOrder waits (bounded) for an order to finish, so the suite also holds for asynchronous
// order modes; in sync mode it returns at once.
func (e *env) finalOrder(t *testing.T, uid string, id int64) trade.Order {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		os, err := e.f.Truth.GetOrders(e.ctx, uid, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range os {
			if o.OrderID == id && o.Status.Final() {
				return o
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("order %d of %s not found or not final after 10s", id, uid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

var orderRE = regexp.MustCompile(`Order\s*(?:<b>)?(\d+)`)

// orderID extracts the order id as DayTrader scripts do.
func orderID(t *testing.T, body string) int64 {
	t.Helper()
	if !strings.Contains(body, "has been submitted") {
		t.Fatalf("no 'has been submitted' on the order page:\n%s", clip(body))
	}
	m := orderRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no order id on the order page:\n%s", clip(body))
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	return id
}

func money(m trade.Money) string { return web.FormatMoney(m) }

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
