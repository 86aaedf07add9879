package web_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/internal/webtest"
	"github.com/tradebench/tradebench/trade/web"
)

// The regexes of DayTrader's JMeter plan (daytrader8_no_ws.jmx), as written there.
var (
	planViewState = regexp.MustCompile(`<input type="hidden" name="javax\.faces\.ViewState" ` +
		`id="j_id__v_0:javax\.faces\.ViewState:1" value="([^"]+)".*/>`)
	planStock    = regexp.MustCompile(`s:([0-9]+)`)
	planHoldings = regexp.MustCompile(`of Holdings: </b>([1-9][0-9]*)</td>`)
)

// jsfSecret is the session secret of the test's web tiers.
var jsfSecret = []byte("jsf test session secret, 32 byte")

// jsfEnv is a web tier over a freshly loaded in-process service, with a clock tests can move.
type jsfEnv struct {
	svc    trade.Service
	srv    *httptest.Server
	offset atomic.Int64
}

func newJSFEnv(t *testing.T) *jsfEnv {
	svc, _ := webtest.Loaded(t, "sqlite:"+filepath.Join(t.TempDir(), "jsf.db"))
	e := &jsfEnv{svc: svc}
	e.srv = e.tier(t, svc, jsfSecret)
	return e
}

// tier starts one more web process over svc with the given session secret.
func (e *jsfEnv) tier(t *testing.T, svc trade.Service, secret []byte) *httptest.Server {
	h, err := web.New(svc, web.Options{SessionSecret: secret, Clock: func() time.Time { return time.Now().Add(time.Duration(e.offset.Load())) }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// planClient is one JMeter thread: a cookie manager, and the last view state extracted by the
// plan's GetViewState extractor (empty, its default, when a response has none).
type planClient struct {
	t    *testing.T
	c    *http.Client
	base string
	vs   string
}

func (e *jsfEnv) client(t *testing.T) *planClient {
	jar, _ := cookiejar.New(nil)
	return &planClient{t: t, c: &http.Client{Jar: jar, Timeout: 10 * time.Second}, base: e.srv.URL}
}

// do sends one sampler's request; a POST with fields carries the echoed view state, as every
// JSF post of the plan does. It returns the status and body and runs the extractor.
func (p *planClient) do(method, page string, fields ...string) (int, string) {
	p.t.Helper()
	var body io.Reader
	f := url.Values{}
	if len(fields) > 0 {
		f.Set("javax.faces.ViewState", p.vs)
	}
	for i := 0; i+1 < len(fields); i += 2 {
		f.Add(fields[i], fields[i+1])
	}
	if method == http.MethodPost {
		body = strings.NewReader(f.Encode())
	}
	req, err := http.NewRequest(method, p.base+"/daytrader/"+page, body)
	if err != nil {
		p.t.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := p.c.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	p.vs = ""
	if m := planViewState.FindSubmatch(b); m != nil {
		p.vs = string(m[1])
	}
	return resp.StatusCode, string(b)
}

// sample is one sampler with the plan's assertion: a status below 400 and, if given, the text.
func (p *planClient) sample(label, method, page, want string, fields ...string) string {
	p.t.Helper()
	status, body := p.do(method, page, fields...)
	if status >= 400 || !strings.Contains(body, want) {
		p.t.Fatalf("%s: status %d, want < 400 and %q in:\n%s", label, status, want, body)
	}
	if p.vs == "" {
		p.t.Fatalf("%s: the page carries no view state for the next post:\n%s", label, body)
	}
	return body
}

func orders(t *testing.T, svc trade.Service, uid string) int {
	t.Helper()
	os, err := svc.GetOrders(context.Background(), uid, 10000)
	if err != nil {
		t.Fatal(err)
	}
	return len(os)
}

func holdings(t *testing.T, svc trade.Service, uid string) []trade.Holding {
	t.Helper()
	hs, err := svc.GetHoldings(context.Background(), uid)
	if err != nil {
		t.Fatal(err)
	}
	return hs
}

// DayTrader's JMeter plan's JSF part, request by request with its field names, its view state
// echo and its assertions: log in, quotes, buy the extracted stock, home, portfolio and sell
// the first listed holding, update the profile, log out, register a new user, log out; then
// again from the login. Every sample answers below 400 and carries a view state, and the
// service's data shows each operation happened to the right user.
func TestJSFPlan(t *testing.T) {
	e := newJSFEnv(t)
	p := e.client(t)
	const uid = "uid:3"
	for round := range 2 {
		p.sample("WelcomePing JSF", "POST", "welcome.faces", "DayTrader Login")
		p.sample("Login JSF", "POST", "welcome.faces", "Ready to Trade",
			"login:password", "xxx", "login:submit", "Log in", "login:uid", uid, "login_SUBMIT", "1")

		p.sample("QuotesPing JSF", "GET", "quote.faces", "DayTrader Quotes")
		body := p.sample("Quotes JSF", "POST", "quote.faces", "DayTrader Quotes",
			"quotes:symbols", "s:7", "quotes:submit2", "quotes", "quotes_SUBMIT", "1",
			"quotes:quotes:0:quantity", "100", "quotes:quotes:1:quantity", "100", "quotes:quotes:2:quantity", "100",
			"quotes:quotes:3:quantity", "100", "quotes:quotes:4:quantity", "100")
		m := planStock.FindStringSubmatch(body)
		if m == nil || m[1] != "7" {
			t.Fatalf("the plan's Stock extractor finds %q on the quotes page, want 7", m)
		}
		before := holdings(t, e.svc, uid)
		p.sample("Buy JSF", "POST", "quote.faces", "been submitted",
			"quotes:symbols", "s:"+m[1], "quotes:quotes:0:quantity", "42", "quotes:quotes:0:buy", "buy", "quotes_SUBMIT", "1")
		after := holdings(t, e.svc, uid)
		if len(after) != len(before)+1 || after[len(after)-1].Symbol != "s:7" || after[len(after)-1].Quantity != 42 {
			t.Fatalf("Buy JSF: holdings %+v → %+v, want one more: 42 of s:7", before, after)
		}

		p.sample("Home JSF", "GET", "tradehome.faces", "Welcome "+uid)
		body = p.sample("PortfolioPing JSF", "GET", "portfolio.faces", "DayTrader Portfolio")
		hm := planHoldings.FindStringSubmatch(body)
		if hm == nil || hm[1] != strconv.Itoa(len(after)) {
			t.Fatalf("the plan's Holdings extractor finds %q, want %d", hm, len(after))
		}
		p.sample("Sell JSF", "POST", "portfolio.faces", "been submitted",
			"portfolio:_idcl", "portfolio:holdings:0:sell", "portfolio_SUBMIT", "1", "portfolio:symbols", "s:0,s:1,s:2,s:3,s:4")
		left := holdings(t, e.svc, uid)
		if len(left) != len(after)-1 || left[0].HoldingID == after[0].HoldingID {
			t.Fatalf("Sell JSF: holdings %+v → %+v, want the first listed one sold", after, left)
		}

		p.sample("Account JSF", "GET", "account.faces", "DayTrader Account")
		name := "rnd1" + strconv.Itoa(round)
		p.sample("Update Profile JSF", "POST", "account.faces", "DayTrader Account",
			"updateProfile:uid", uid, "updateProfile:fullname", name, "updateProfile:password", "xxx",
			"updateProfile:address", "rndAddress", "updateProfile:cpassword", "xxx", "updateProfile:ccn", "rndCC",
			"updateProfile:email", "rndEmail@email.com", "updateProfile_SUBMIT", "1", "updateProfile:submit", "Update Profile",
			"updateProfile:symbols", "s:0,s:1,s:2,s:3,s:4")
		if prof, err := e.svc.GetAccountProfileData(context.Background(),
			uid); err != nil || prof.FullName != name || prof.Email != "rndEmail@email.com" {
			t.Fatalf("Update Profile JSF: profile %+v, %v", prof, err)
		}

		p.sample("HomePing JSF", "GET", "tradehome.faces", "Welcome "+uid)
		p.sample("Logout JSF", "POST", "tradehome.faces", "DayTrader Login",
			"tradeHome:_idcl", "tradeHome:logoff", "tradeHome:symbols", "s:0,s:1,s:2,s:3,s:4", "tradeHome_SUBMIT", "1")
		p.sample("RegisterPing", "GET", "register.faces", "Register")
		newUID := "ru:3" + strconv.Itoa(round) + ":" + time.Now().Format("150405") + "7"
		p.sample("Register JSF", "POST", "register.faces", "Registration operation succeeded",
			"register:fullname", "first:1 last:2", "register:address", "first:3 last:4", "register:email", "uid3@42.com",
			"register:uid", newUID, "register:password", "yyy", "register:cpassword", "yyy", "register:money", "1000000",
			"register:ccn", "123-fake-ccnum-456", "register_SUBMIT", "1", "register:submit", "Register")
		if _, err := e.svc.Login(context.Background(), newUID, "yyy"); err != nil {
			t.Fatalf("Register JSF: the new user cannot log in: %v", err)
		}
		p.sample("HomePing JSF", "GET", "tradehome.faces", "Welcome "+newUID)
		p.sample("Logout JSF", "POST", "tradehome.faces", "DayTrader Login",
			"tradeHome:_idcl", "tradeHome:logoff", "tradeHome:symbols", "s:0,s:1,s:2,s:3,s:4", "tradeHome_SUBMIT", "1")
		// logged out: the home page is the login page, still with a view state for the next post
		p.sample("HomePing JSF (logged out)", "GET", "tradehome.faces", "DayTrader Login")
	}
}

// wantRefused asserts a JSF post is refused with status and a message, and changed nothing of
// uid's orders and holdings.
func wantRefused(t *testing.T, e *jsfEnv, p *planClient, uid, label string, status int, msg, page string, fields ...string) {
	t.Helper()
	o, h := orders(t, e.svc, uid), len(holdings(t, e.svc, uid))
	got, body := p.do("POST", page, fields...)
	if got != status || !strings.Contains(body, msg) {
		t.Errorf("%s: status %d, want %d with %q in:\n%s", label, got, status, msg, body)
	}
	if o2, h2 := orders(t, e.svc, uid), len(holdings(t, e.svc, uid)); o2 != o || h2 != h {
		t.Errorf("%s: orders %d → %d, holdings %d → %d: a refused post changed something", label, o, o2, h, h2)
	}
}

// login logs uid in through welcome.faces and leaves the client on the quotes page.
func (p *planClient) login(uid string) {
	p.t.Helper()
	p.sample("WelcomePing JSF", "POST", "welcome.faces", "DayTrader Login")
	p.sample("Login JSF", "POST", "welcome.faces", "Ready to Trade",
		"login:password", "xxx", "login:submit", "Log in", "login:uid", uid, "login_SUBMIT", "1")
}

// Malformed and forged JSF posts are refused with a 4xx and a message, place no order and sell
// nothing: a missing, changed, foreign or expired view state; a form not on the page; an unknown
// command; a row index out of range; a quantity that is not a number; another user's profile;
// an email with a colon. Mutants caught: a view state check that accepts any value (forged),
// one not bound to the session (foreign), one without expiry (expired).
func TestJSFBadInput(t *testing.T) {
	e := newJSFEnv(t)
	const uid = "uid:5"
	p := e.client(t)
	p.login(uid)
	p.sample("QuotesPing JSF", "GET", "quote.faces", "DayTrader Quotes")
	good := p.vs
	buy := func(vs string, extra ...string) []string {
		f := append([]string{"quotes:symbols", "s:4", "quotes:quotes:0:quantity", "10", "quotes:quotes:0:buy", "buy", "quotes_SUBMIT", "1"}, extra...)
		p.vs = vs
		return f
	}

	wantRefused(t, e, p, uid, "no view state", 400, "carries no javax.faces.ViewState", "quote.faces", buy("")...)
	forged := good[:len(good)-1] + "A" // one character of the MAC changed
	if strings.HasSuffix(good, "A") {
		forged = good[:len(good)-1] + "B"
	}
	wantRefused(t, e, p, uid, "forged view state", 403, "not valid for this session", "quote.faces", buy(forged)...)
	wantRefused(t, e, p, uid, "garbage view state", 403, "not valid for this session", "quote.faces", buy("rO0ABXVyABNbTGphdmEubGFuZy5PYmplY3Q7")...)

	// another user's view state, with this user's cookies
	other := e.client(t)
	other.login("uid:6")
	other.sample("QuotesPing JSF", "GET", "quote.faces", "DayTrader Quotes")
	wantRefused(t, e, p, uid, "foreign view state", 403, "not valid for this session", "quote.faces", buy(other.vs)...)
	// this user's earlier session: a new login makes new tokens
	p2 := e.client(t)
	p2.login(uid)
	p2.sample("QuotesPing JSF", "GET", "quote.faces", "DayTrader Quotes")
	wantRefused(t, e, p, uid, "view state of another session of the same user", 403, "not valid for this session", "quote.faces", buy(p2.vs)...)

	wantRefused(t, e, p, uid, "form not on the page", 400, "quotes_SUBMIT=1", "quote.faces", "quotes:quotes:0:buy", "buy", "quotes:symbols",
		"s:4", "quotes:quotes:0:quantity", "1")
	p.vs = good
	wantRefused(t, e, p, uid, "quantity not a number", 400, "whole number", "quote.faces",
		"quotes:symbols", "s:4", "quotes:quotes:0:quantity", "ten", "quotes:quotes:0:buy", "buy", "quotes_SUBMIT", "1")
	p.vs = good
	wantRefused(t, e, p, uid, "buy row out of range", 400, "Row 3 is not on the page", "quote.faces",
		"quotes:symbols", "s:4,s:5", "quotes:quotes:3:quantity", "1", "quotes:quotes:3:buy", "buy", "quotes_SUBMIT", "1")
	p.vs = good
	wantRefused(t, e, p, uid, "two buy buttons", 400, "More than one buy", "quote.faces",
		"quotes:symbols", "s:4,s:5", "quotes:quotes:0:buy", "buy", "quotes:quotes:1:buy", "buy", "quotes:quotes:0:quantity", "1", "quotes_SUBMIT", "1")

	p.sample("PortfolioPing JSF", "GET", "portfolio.faces", "DayTrader Portfolio")
	pvs := p.vs
	n := len(holdings(t, e.svc, uid))
	wantRefused(t, e, p, uid, "holding index out of range", 400, "is not on the page", "portfolio.faces",
		"portfolio:_idcl", "portfolio:holdings:"+strconv.Itoa(n)+":sell", "portfolio_SUBMIT", "1")
	p.vs = pvs
	wantRefused(t, e, p, uid, "negative holding index", 400, "Unknown command", "portfolio.faces",
		"portfolio:_idcl", "portfolio:holdings:-1:sell", "portfolio_SUBMIT", "1")
	p.vs = pvs
	wantRefused(t, e, p, uid, "unknown _idcl", 400, "Unknown command", "portfolio.faces",
		"portfolio:_idcl", "portfolio:deleteEverything", "portfolio_SUBMIT", "1")
	p.vs = pvs
	wantRefused(t, e, p, uid, "unknown _idcl on home", 400, "Unknown command", "tradehome.faces",
		"tradeHome:_idcl", "tradeHome:holdings:0:sell", "tradeHome_SUBMIT", "1")

	// the view state expires with the session lifetime
	p.vs = pvs
	e.offset.Store(int64(web.DefaultSessionTTL - time.Minute)) // the session is refreshed by the next request…
	p.sample("PortfolioPing JSF", "GET", "portfolio.faces", "DayTrader Portfolio")
	e.offset.Store(int64(2*web.DefaultSessionTTL - 2*time.Minute)) // …but the first token is now too old
	p.vs = pvs
	wantRefused(t, e, p, uid, "expired view state", 403, "not valid for this session", "portfolio.faces",
		"portfolio:_idcl", "portfolio:holdings:0:sell", "portfolio_SUBMIT", "1")
	e.offset.Store(0)

	// a session's own data only, and DayTrader's email rule, on the JSF pages too
	p.sample("Account JSF", "GET", "account.faces", "DayTrader Account")
	avs := p.vs
	wantRefused(t, e, p, uid, "another user's profile", 403, "only update your own profile", "account.faces",
		"updateProfile:uid", "uid:6", "updateProfile:fullname", "X", "updateProfile:email", "x@y.org", "updateProfile_SUBMIT", "1")
	p.vs = avs
	wantRefused(t, e, p, uid, "email with a colon", 400, "colon", "account.faces",
		"updateProfile:uid", uid, "updateProfile:fullname", "X", "updateProfile:email", "uid:5@example.com", "updateProfile_SUBMIT", "1")
	if prof, _ := e.svc.GetAccountProfileData(context.Background(), "uid:6"); prof.FullName == "X" {
		t.Error("uid:6's profile was changed by uid:5")
	}
	anon := e.client(t)
	anon.sample("RegisterPing", "GET", "register.faces", "Register")
	wantRefused(t, e, anon, uid, "register with a colon in the email", 400, "colon", "register.faces",
		"register:uid", "ru:colon", "register:password", "y", "register:cpassword", "y", "register:money", "10",
		"register:email", "ru:colon@example.com", "register_SUBMIT", "1")
	if _, err := e.svc.GetAccountData(context.Background(), "ru:colon"); err == nil {
		t.Error("a refused registration created the account")
	}

	// a visitor not logged in cannot sell: the login page, nothing sold
	anon.sample("WelcomePing JSF", "POST", "welcome.faces", "DayTrader Login")
	o := orders(t, e.svc, uid)
	if status, body := anon.do("POST", "portfolio.faces", "portfolio:_idcl", "portfolio:holdings:0:sell", "portfolio_SUBMIT",
		"1"); status != 200 || !strings.Contains(body, "DayTrader Login") {
		t.Errorf("anonymous sell: status %d:\n%s", status, body)
	}
	if orders(t, e.svc, uid) != o {
		t.Error("an anonymous post placed an order")
	}
}

// Web processes that share the session secret accept each other's view states (a balanced web
// tier); one with another secret refuses them.
func TestJSFViewStateAcrossTiers(t *testing.T) {
	e := newJSFEnv(t)
	twin := e.tier(t, e.svc, jsfSecret)
	stranger := e.tier(t, e.svc, []byte("another deployment's secret, 32b"))
	p := e.client(t)
	p.login("uid:7")
	p.sample("QuotesPing JSF", "GET", "quote.faces", "DayTrader Quotes")
	vs := p.vs
	p.base = twin.URL
	// cookies are per host; carry the session to the other tiers as a balancer's clients would
	u, _ := url.Parse(e.srv.URL)
	for _, other := range []string{twin.URL, stranger.URL} {
		ou, _ := url.Parse(other)
		p.c.Jar.SetCookies(ou, p.c.Jar.Cookies(u))
	}
	p.vs = vs
	p.sample("Buy JSF on another tier", "POST", "quote.faces", "been submitted",
		"quotes:symbols", "s:3", "quotes:quotes:0:quantity", "5", "quotes:quotes:0:buy", "buy", "quotes_SUBMIT", "1")
	p.base = stranger.URL
	p.vs = vs
	// there neither the session nor the view state is valid: the login page, no order
	o := orders(t, e.svc, "uid:7")
	status, body := p.do("POST", "quote.faces", "quotes:symbols", "s:3", "quotes:quotes:0:quantity", "5", "quotes:quotes:0:buy", "buy",
		"quotes_SUBMIT", "1")
	if !strings.Contains(body, "DayTrader Login") || orders(t, e.svc, "uid:7") != o {
		t.Errorf("a tier with another secret: status %d, orders %d → %d:\n%s", status, o, orders(t, e.svc, "uid:7"), body)
	}
}
