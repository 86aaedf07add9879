package webtest

import (
	"encoding/base64"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/trade"
)

func manySymbols(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("s:" + strconv.Itoa(i) + ",")
	}
	return b.String()
}

func htmlEsc(s string) string { return html.EscapeString(s) }

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// badCase is one bad request and the status and message it must get.
type badCase struct {
	name   string
	method string // GET or POST
	path   string
	form   url.Values
	csrf   bool // add the session's form token (a /trade/ form)
	status int  // 0: any 4xx
	text   string
	header map[string]string
}

// testBadInput sends every bad request of badCases as one logged-in user: each must get a 4xx
// page with its message, echo nothing unescaped, and change nothing in the database, and the
// session must still work after them all.
func (e *env) testBadInput(t *testing.T) {
	const uid = "uid:4"
	b := e.browser(t)
	b.login(false, uid, e.f.Password)
	b.get("/trade/home")
	token := b.csrf()
	other := e.holdings(t, "uid:5")[0]
	own := e.holdings(t, uid)[0]
	before := e.snap(t, uid, "s:1", own.Symbol)
	beforeOther := e.snap(t, "uid:5")
	for _, c := range badCases(uid, own, other) {
		body, ok := sendBad(t, b, c, token)
		if !ok {
			continue
		}
		checkBadPage(t, c, body)
		if after := e.snap(t, uid, "s:1", own.Symbol); after != before {
			t.Fatalf("%s changed the database:\nbefore %s\nafter  %s", c.name, before, after)
		}
	}
	if after := e.snap(t, "uid:5"); after != beforeOther {
		t.Fatalf("bad input changed another user:\nbefore %s\nafter  %s", beforeOther, after)
	}
	if _, err := e.f.Truth.GetAccountData(e.ctx, "bad:new"); err == nil {
		t.Error("a rejected registration created an account")
	}
	// still logged in and working after all that
	code, body := b.get("/trade/home")
	wantStatus(t, "home after bad input", code, http.StatusOK)
	must(t, body, "Welcome "+uid+"</p>")
}

// sendBad sends c in b's session (token its form token) and reports whether the answer was the
// 4xx c wants; it fails the test when not.
func sendBad(t *testing.T, b *browser, c badCase, token string) (body string, ok bool) {
	t.Helper()
	var code int
	form := url.Values{}
	for k, v := range c.form {
		form[k] = v
	}
	if c.csrf {
		form.Set("csrf", token)
	}
	if c.method == "GET" {
		code, body = b.get(c.path)
	} else {
		code, body = b.post(c.path, form)
	}
	if code < 400 || code > 499 || (c.status != 0 && code != c.status) {
		t.Errorf("%s: status %d, want %v (4xx); page:\n%s", c.name, code, c.status, clip(body))
		return body, false
	}
	return body, true
}

// checkBadPage checks the error page of c: its message shown, no input echoed unescaped.
func checkBadPage(t *testing.T, c badCase, body string) {
	t.Helper()
	if c.text != "" && !strings.Contains(body, c.text) {
		t.Errorf("%s: page lacks the message %q:\n%s", c.name, c.text, clip(body))
	}
	if c.path != "/daytrader/rest/quotes" && !strings.Contains(body, `class="err"`) {
		t.Errorf("%s: no error message on the page:\n%s", c.name, clip(body))
	}
	for _, raw := range []string{"<script>", "<img src=x", "<b>nope"} {
		if strings.Contains(body, raw) {
			t.Errorf("%s: user input %q echoed unescaped", c.name, raw)
		}
	}
}

// dtApp is DayTrader's one servlet, where every action is a query parameter.
const dtApp = "/daytrader/app"

// badCases are the bad requests testBadInput sends as uid, whose holding own is; other is
// another user's.
func badCases(uid string, own, other trade.Holding) []badCase {
	return slices.Concat(badTrades(own, other), badAccounts(uid), badPages())
}

// badTrades are bad buys and sells: unknown or malformed symbols, quantities and holdings.
func badTrades(own, other trade.Holding) []badCase {
	dt := dtApp
	long := strings.Repeat("x", 200)
	sell := func(holding trade.Holding, quantity string) url.Values {
		v := url.Values{"holdingID": {strconv.FormatInt(holding.HoldingID, 10)}}
		if quantity != "" {
			v.Set("quantity", quantity)
		}
		return v
	}
	return []badCase{
		{name: "unknown symbol (dt)", method: "GET", path: dt + "?action=buy&symbol=nosuch&quantity=10", status: 404},
		{name: "unknown symbol (trade)", method: "POST", path: "/trade/buy",
			form: url.Values{"symbol": {"s:999999"}, "quantity": {"10"}}, csrf: true, status: 404},
		{name: "markup symbol", method: "GET", path: dt + "?action=buy&symbol=%3Cscript%3E&quantity=10", status: 404},
		{name: "empty symbol", method: "GET", path: dt + "?action=buy&symbol=&quantity=10", status: 400, text: "symbol is required"},
		{name: "long symbol", method: "GET", path: dt + "?action=buy&symbol=" + long + "&quantity=10", status: 400},
		{name: "quantity text", method: "GET", path: dt + "?action=buy&symbol=s:1&quantity=abc", status: 400, text: "whole number"},
		{name: "quantity zero", method: "GET", path: dt + "?action=buy&symbol=s:1&quantity=0", status: 400, text: "positive"},
		{name: "quantity negative", method: "POST", path: "/trade/buy",
			form: url.Values{"symbol": {"s:1"}, "quantity": {"-5"}}, csrf: true, status: 400},
		{name: "quantity float", method: "GET", path: dt + "?action=buy&symbol=s:1&quantity=1.5", status: 400},
		{name: "quantity exponent", method: "GET", path: dt + "?action=buy&symbol=s:1&quantity=1e3", status: 400},
		{name: "quantity absurd", method: "GET", path: dt + "?action=buy&symbol=s:1&quantity=1000000000", status: 400, text: "maximum"},
		{name: "quantity overflow", method: "GET", path: dt + "?action=buy&symbol=s:1&quantity=99999999999999999999999",
			status: 400, text: "maximum"},
		{name: "quantity missing", method: "GET", path: dt + "?action=buy&symbol=s:1", status: 400, text: "required"},
		{name: "holding id text", method: "GET", path: dt + "?action=sell&holdingID=abc", status: 400, text: "holdingID"},
		{name: "holding id missing", method: "GET", path: dt + "?action=sell", status: 400},
		{name: "holding id negative", method: "POST", path: "/trade/sell", form: url.Values{"holdingID": {"-3"}}, csrf: true, status: 400},
		{name: "holding unknown", method: "GET", path: dt + "?action=sell&holdingID=999999999", status: 404},
		{name: "someone else's holding (dt)", method: "GET", path: dt + "?action=sell&holdingID=" + strconv.FormatInt(other.HoldingID, 10)},
		{name: "someone else's holding (trade)", method: "POST", path: "/trade/sell", form: sell(other, ""), csrf: true},
		{name: "sell more than held", method: "POST", path: "/trade/sell",
			form: sell(own, strconv.FormatInt(own.Quantity+1, 10)), csrf: true, status: 400},
		{name: "sell negative quantity", method: "POST", path: "/trade/sell", form: sell(own, "-1"), csrf: true, status: 400},
	}
}

// badAccounts are bad logins, registrations and profile updates of uid's session.
func badAccounts(uid string) []badCase {
	dt := dtApp
	long := strings.Repeat("x", 200)
	reg := func(kv ...string) url.Values {
		v := url.Values{"action": {"register"}, "Full Name": {"R"}, "snail mail": {"a"}, "email": {"e@x"}, "user id": {"bad:new"},
			"passwd": {"p"}, "confirm passwd": {"p"}, "money": {"100"}, "Credit Card Number": {"1"}}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}
	prof := func(kv ...string) url.Values {
		v := url.Values{"action": {"update_profile"}, "userID": {uid}, "fullname": {"F"}, "address": {"A"}, "email": {"e@x"}, "creditcard": {"1"}}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}
	return []badCase{
		{name: "wrong password", method: "POST", path: "/trade/login",
			form: url.Values{"uid": {uid}, "passwd": {"wrong"}}, status: 401, text: "not correct"},
		{name: "unknown user", method: "GET", path: dt + "?action=login&uid=nobody&passwd=xxx", status: 401, text: "not correct"},
		{name: "empty login", method: "POST", path: "/trade/login", form: url.Values{"uid": {""}}, status: 400},
		{name: "duplicate user id", method: "POST", path: dt, form: reg("user id", "uid:0"), status: 409},
		{name: "register password mismatch", method: "POST", path: dt, form: reg("confirm passwd", "q"), status: 400, text: "do not match"},
		{name: "register long name", method: "POST", path: "/trade/register", form: reg("Full Name", long), status: 400, text: "longer than"},
		{name: "register markup", method: "POST", path: dt, form: reg("Full Name", "<script>alert(1)</script>"), status: 400, text: "must not contain"},
		{name: "register markup user id", method: "POST", path: dt, form: reg("user id", "<b>x</b>"), status: 400},
		{name: "register long user id", method: "POST", path: dt, form: reg("user id", long), status: 400},
		{name: "register empty user id", method: "POST", path: dt, form: reg("user id", ""), status: 400},
		{name: "register empty password", method: "POST", path: dt, form: reg("passwd", "", "confirm passwd", ""), status: 400},
		{name: "register money text", method: "POST", path: dt, form: reg("money", "lots"), status: 400},
		{name: "register money negative", method: "POST", path: dt, form: reg("money", "-5"), status: 400},
		{name: "register money absurd", method: "POST", path: dt, form: reg("money", "99999999999999"), status: 400},
		{name: "register money fraction", method: "POST", path: dt, form: reg("money", "1.005"), status: 400},
		{name: "profile long field", method: "POST", path: dt, form: prof("address", long), status: 400},
		{name: "profile markup", method: "POST", path: dt, form: prof("fullname", `<img src=x onerror=alert(1)>`), status: 400, text: "must not contain"},
		{name: "profile password mismatch", method: "POST", path: dt, form: prof("password", "a", "cpassword", "b"), status: 400, text: "do not match"},
		{name: "profile other user", method: "POST", path: dt, form: prof("userID", "uid:5", "fullname", "Hacked"), status: 403},
	}
}

// badPages are bad requests of pages: unknown ones, wrong methods, oversized or malformed
// bodies, too many or unknown quotes.
func badPages() []badCase {
	dt := dtApp
	return []badCase{
		{name: "quotes unknown symbol", method: "GET", path: "/trade/quotes?symbols=s:1,%3Cscript%3Ealert(1)%3C/script%3E", status: 404},
		{name: "quotes too many", method: "GET", path: "/trade/quotes?symbols=" + manySymbols(trade.MaxSymbols+1), status: 400, text: "At most"},
		{name: "unknown action", method: "GET", path: dt + "?action=<b>nope</b>", status: 400, text: "Unknown action"},
		{name: "unknown page", method: "GET", path: "/trade/nope", status: 404},
		{name: "wrong method", method: "GET", path: "/trade/buy", status: 405},
		{name: "huge body", method: "POST", path: "/trade/buy",
			form: url.Values{"symbol": {"s:1"}, "quantity": {"1"}, "pad": {strings.Repeat("z", 100<<10)}}, csrf: true, status: 413},
		{name: "malformed form", method: "POST", path: dt + "?action=buy&symbol=s:1&quantity=1%zz", status: 400},
	}
}

// testIsolation: a user never sees or changes another user's data.
func (e *env) testIsolation(t *testing.T) {
	const me, them = "uid:5", "uid:6"
	theirs := e.holdings(t, them)
	themBefore := e.snap(t, them)
	themAcct := e.account(t, them)
	for _, dt := range []bool{true, false} {
		b := e.browser(t)
		b.login(dt, me, e.f.Password)
		for _, p := range []string{"home", "account", "portfolio"} {
			_, body := b.page(dt, p)
			aid := strconv.FormatInt(themAcct.AccountID, 10)
			mustNot(t, body, them+"<", "Account ID: </b>"+aid+"</td>", "<th>Account ID</th><td>"+aid+"</td>")
			for _, h := range theirs {
				mustNot(t, body, "holdingID="+strconv.FormatInt(h.HoldingID, 10)+`"`, `name="holdingID" value="`+strconv.FormatInt(h.HoldingID, 10)+`"`)
			}
		}
		// query parameters naming the other user are ignored or refused
		_, body := b.get("/daytrader/app?action=account&uid=" + them + "&userID=" + them)
		mustNot(t, body, "<td>"+them+"</td>")
		code, _ := b.get("/daytrader/app?action=sell&holdingID=" + strconv.FormatInt(theirs[0].HoldingID, 10))
		if code != http.StatusForbidden && code != http.StatusNotFound {
			t.Errorf("selling another user's holding: status %d, want 403 or 404", code)
		}
	}
	if after := e.snap(t, them); after != themBefore {
		t.Fatalf("another user's data changed:\nbefore %s\nafter  %s", themBefore, after)
	}
}

func (e *env) testSessions(t *testing.T) {
	const uid = "uid:13"
	b := e.browser(t)
	b.login(true, uid, e.f.Password)
	u, _ := url.Parse(e.srv.URL)
	cookies := b.c.Jar.Cookies(u)
	if len(cookies) != 1 {
		t.Fatalf("cookies after login: %v", cookies)
	}
	good := cookies[0].Value

	// the cookie's attributes
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.PostForm(e.srv.URL+"/trade/login", url.Values{"uid": {uid}, "passwd": {e.f.Password}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var sc *http.Cookie
	for _, c := range resp.Cookies() {
		sc = c
	}
	if sc == nil || !sc.HttpOnly || sc.SameSite != http.SameSiteLaxMode || sc.MaxAge <= 0 || sc.Path != "/" {
		t.Fatalf("session cookie attributes: %+v", sc)
	}

	withCookie := func(v string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/daytrader/app?action=home", nil)
		req.AddCookie(&http.Cookie{Name: "tb_session", Value: v})
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var sb strings.Builder
		buf := make([]byte, 32<<10)
		for {
			n, err := resp.Body.Read(buf)
			sb.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return resp.StatusCode, sb.String()
	}
	code, body := withCookie(good)
	wantStatus(t, "good cookie", code, http.StatusOK)
	must(t, body, "Welcome "+uid+"</p>")

	// tampered: every single-character change anywhere in the cookie is refused
	for i := 0; i < len(good); i += 3 {
		c := []byte(good)
		if c[i] == 'A' {
			c[i] = 'B'
		} else {
			c[i] = 'A'
		}
		code, body := withCookie(string(c))
		if strings.Contains(body, "Welcome uid:") {
			t.Fatalf("tampered cookie (byte %d) accepted: %q", i, c)
		}
		wantStatus(t, "tampered cookie", code, http.StatusOK)
		must(t, body, "DayTrader Login", "not valid")
	}
	// another user's cookie cannot be made from this one: swap in a user id
	parts := strings.Split(good, ".")
	if len(parts) > 2 {
		parts[1] = strings.TrimRight(b64url("uid:6"), "=")
		_, body := withCookie(strings.Join(parts, "."))
		mustNot(t, body, "Welcome uid:6", "Welcome uid:13")
	}

	// expired: move the server's clock past the session's lifetime
	ttl := e.f.Options.SessionTTL
	if ttl == 0 {
		ttl = 30 * time.Minute
	}
	e.offset.Store(int64(ttl + time.Minute))
	defer e.offset.Store(0)
	code, body = withCookie(good)
	wantStatus(t, "expired cookie", code, http.StatusOK)
	must(t, body, "DayTrader Login", "expired")
	mustNot(t, body, "Welcome uid:")
	code, body = b.get("/trade/home")
	wantStatus(t, "expired cookie /trade/", code, http.StatusUnauthorized)
	must(t, body, "expired")
}

// testCSRF: /trade/ forms need the session's token; browsers' cross-site requests are refused.
func (e *env) testCSRF(t *testing.T) {
	const uid = "uid:13"
	b := e.browser(t)
	b.login(false, uid, e.f.Password)
	b2 := e.browser(t)
	b2.login(false, uid, e.f.Password)
	b2.get("/trade/home")
	before := e.snap(t, uid, "s:1")
	for _, tok := range []string{"", "forged-token"} {
		code, body := b.post("/trade/buy", url.Values{"symbol": {"s:1"}, "quantity": {"1"}, "csrf": {tok}})
		wantStatus(t, "buy with token "+tok, code, http.StatusForbidden)
		mustNot(t, body, "has been submitted")
	}
	// another session's token does not work in this one
	code, _ := b.post("/trade/buy", url.Values{"symbol": {"s:1"}, "quantity": {"1"}, "csrf": {b2.csrf()}})
	wantStatus(t, "buy with another session's token", code, http.StatusForbidden)

	crossSite := func(method, path string, form url.Values) int {
		req, _ := http.NewRequest(method, e.srv.URL+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		code, _ := b.do(req)
		return code
	}
	b.get("/trade/home")
	tok := b.csrf()
	wantStatus(t, "cross-site POST /trade/buy",
		crossSite("POST", "/trade/buy", url.Values{"symbol": {"s:1"}, "quantity": {"1"}, "csrf": {tok}}), http.StatusForbidden)
	wantStatus(t, "cross-site POST daytrader buy",
		crossSite("POST", "/daytrader/app", url.Values{"action": {"buy"}, "symbol": {"s:1"}, "quantity": {"1"}}), http.StatusForbidden)
	wantStatus(t, "cross-site GET daytrader buy", crossSite("GET", "/daytrader/app?action=buy&symbol=s:1&quantity=1", nil), http.StatusForbidden)
	// a cross-site GET of a page that changes nothing is fine (links from other sites work)
	wantStatus(t, "cross-site GET quotes", crossSite("GET", "/daytrader/app?action=quotes&symbols=s:1", nil), http.StatusOK)
	if after := e.snap(t, uid, "s:1"); after != before {
		t.Fatalf("refused requests changed the database:\nbefore %s\nafter  %s", before, after)
	}
	// and the real form still works
	code, body := b.post("/trade/buy", url.Values{"symbol": {"s:1"}, "quantity": {"1"}, "csrf": {tok}})
	wantStatus(t, "buy with the token", code, http.StatusOK)
	must(t, body, "has been submitted")
}

func b64url(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
