package webtest

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/trade"
)

func (e *env) testLoginPages(t *testing.T) {
	b := e.browser(t)
	for _, p := range []string{"/daytrader/app", "/daytrader/", "/daytrader/welcome.jsp"} {
		code, body := b.get(p)
		wantStatus(t, p, code, http.StatusOK)
		must(t, body, "DayTrader Login", `name="uid"`, `name="passwd"`, `name="action" value="login"`)
	}
	code, body := b.get("/trade/login")
	wantStatus(t, "/trade/login", code, http.StatusOK)
	must(t, body, "tradebench Login", `action="/trade/login"`, `name="uid"`)
	// the root sends a visitor to the home page, which asks for a login
	code, body = b.get("/")
	wantStatus(t, "/", code, http.StatusUnauthorized)
	must(t, body, "tradebench Login", "Please log in")
}

func (e *env) testNotLoggedIn(t *testing.T) {
	b := e.browser(t)
	for _, a := range []string{"home", "account", "portfolio", "quotes&symbols=s:1", "mksummary",
		"buy&symbol=s:1&quantity=1", "sell&holdingID=1", "update_profile&fullname=x"} {
		code, body := b.get("/daytrader/app?action=" + a)
		wantStatus(t, a, code, http.StatusOK) // DayTrader's behaviour
		must(t, body, "DayTrader Login", "Please log in")
		mustNot(t, body, "Welcome uid:", "has been submitted", "Number of Holdings")
	}
	for _, p := range []string{"home", "account", "portfolio", "quotes", "marketsummary"} {
		code, body := b.get("/trade/" + p)
		wantStatus(t, p, code, http.StatusUnauthorized)
		must(t, body, "tradebench Login", "Please log in")
		mustNot(t, body, "Welcome uid:")
	}
	code, body := b.post("/trade/buy", url.Values{"symbol": {"s:1"}, "quantity": {"1"}})
	wantStatus(t, "anonymous POST /trade/buy", code, http.StatusUnauthorized)
	mustNot(t, body, "has been submitted")
}

func (e *env) testDayTraderHome(t *testing.T) {
	b := e.browser(t)
	// the scripts' exact request: a GET with uid and passwd in the query
	code, body := b.get("/daytrader/app?action=login&uid=uid:0&passwd=" + url.QueryEscape(e.f.Password))
	wantStatus(t, "login", code, http.StatusOK)
	a := e.account(t, "uid:0")
	must(t, body, "Welcome to DayTrader", "Welcome uid:0", "of Holdings: </b>"+strconv.Itoa(e.f.Holdings)+"</td>",
		"<td><b>Number of Holdings: </b>"+strconv.Itoa(e.f.Holdings)+"</td>",
		"Account ID: </b>"+strconv.FormatInt(a.AccountID, 10)+"</td>",
		"Cash Balance: </b>"+money(a.Balance)+"</td>",
		"Total logins: </b>"+strconv.FormatInt(a.LoginCount, 10)+"</td>")
	if a.LoginCount < 1 {
		t.Errorf("login count %d after a login", a.LoginCount)
	}
	code, body2 := b.get("/daytrader/app?action=home")
	wantStatus(t, "home", code, http.StatusOK)
	must(t, body2, "Welcome to DayTrader", "Welcome uid:0", "of Holdings: </b>"+strconv.Itoa(e.f.Holdings)+"</td>")
	ms, err := e.f.Truth.GetMarketSummary(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	must(t, body2, ">"+ms.TSIA.String()+"<", ">"+ms.OpenTSIA.String()+"<", ms.GainPercent()+"%")
	for _, q := range ms.TopGainers {
		must(t, body2, ">"+q.Symbol+"</a>")
	}
}

// testPages checks every page of one contract renders the service's data for uid, one page
// after the other in one logged-in browser.
func (e *env) testPages(t *testing.T, dt bool, uid string) {
	b := e.browser(t)
	b.login(dt, uid, e.f.Password)
	a := e.testHomePage(t, b, dt, uid)
	e.testAccountPage(t, b, dt, uid, a)
	e.testPortfolioPage(t, b, dt, uid)
	e.testQuotesPages(t, b, dt)
	e.testMarketSummaryPage(t, b, dt)
	e.testPublicPages(t, dt)
}

// testHomePage checks the home page's welcome and account summary, and returns uid's account.
func (e *env) testHomePage(t *testing.T, b *browser, dt bool, uid string) trade.Account {
	brand := "tradebench"
	if dt {
		brand = "DayTrader"
	}
	code, body := b.page(dt, "home")
	wantStatus(t, "home", code, http.StatusOK)
	a := e.account(t, uid)
	must(t, body, "Welcome to "+brand, "Welcome "+uid+"</p>", "<td><b>Number of Holdings: </b>"+strconv.Itoa(e.f.Holdings)+"</td>",
		"Cash Balance: </b>"+money(a.Balance)+"</td>", "Opening Balance: </b>"+money(a.OpenBalance)+"</td>")
	return a
}

// testAccountPage checks the account page: the account's data, the profile form, the orders.
func (e *env) testAccountPage(t *testing.T, b *browser, dt bool, uid string, a trade.Account) {
	code, body := b.page(dt, "account")
	wantStatus(t, "account", code, http.StatusOK)
	prof, err := e.f.Truth.GetAccountProfileData(e.ctx, uid)
	if err != nil {
		t.Fatal(err)
	}
	orders, err := e.f.Truth.GetOrders(e.ctx, uid, 0)
	if err != nil {
		t.Fatal(err)
	}
	must(t, body, "<td>"+uid+"</td>", "<td>"+strconv.FormatInt(a.AccountID, 10)+"</td>", money(a.Balance),
		`name="fullname" value="`+htmlEsc(prof.FullName)+`"`, `name="email" value="`+htmlEsc(prof.Email)+`"`,
		`name="address"`, `name="creditcard"`, `name="password"`, `name="cpassword"`, `name="userID" value="`+uid+`"`)
	for _, o := range orders {
		must(t, body, "<tr><td>"+strconv.FormatInt(o.OrderID, 10)+"</td>")
	}
	if dt {
		must(t, body, `name=action value=update_profile>`)
	} else {
		must(t, body, `action="/trade/account"`, `name="csrf"`)
	}
}

// testPortfolioPage checks the portfolio: every holding, valued at its quote, with a sell link
// or form.
func (e *env) testPortfolioPage(t *testing.T, b *browser, dt bool, uid string) {
	code, body := b.page(dt, "portfolio")
	wantStatus(t, "portfolio", code, http.StatusOK)
	hs := e.holdings(t, uid)
	var syms []string
	for _, h := range hs {
		syms = append(syms, h.Symbol)
	}
	qs, err := e.f.Truth.GetQuotes(e.ctx, dedupe(syms))
	if err != nil {
		t.Fatal(err)
	}
	price := map[string]trade.Money{}
	for _, q := range qs {
		price[q.Symbol] = q.Price
	}
	var total trade.Money
	for _, h := range hs {
		id := strconv.FormatInt(h.HoldingID, 10)
		value := price[h.Symbol].Times(h.Quantity)
		total += value
		must(t, body, "<td>"+id+"</td>", ">"+h.Symbol+"</a>", money(value))
		if dt {
			must(t, body, `app?action=sell&holdingID=`+id+`"`)
		} else {
			must(t, body, `name="holdingID" value="`+id+`"`)
		}
	}
	must(t, body, money(total), "Number of holdings: "+strconv.Itoa(len(hs)))
}

// testQuotesPages checks the quotes page for one and many symbols, each with a buy form, and
// for none (DayTrader's default list).
func (e *env) testQuotesPages(t *testing.T, b *browser, dt bool) {
	for _, list := range []string{"s:1", "s:1,s:2,s:5"} {
		var path string
		if dt {
			path = "/daytrader/app?action=quotes&symbols=" + list
		} else {
			path = "/trade/quotes?symbols=" + url.QueryEscape(list)
		}
		code, body := b.get(path)
		wantStatus(t, path, code, http.StatusOK)
		must(t, body, "<title>"+map[bool]string{true: "DayTrader: Quotes and Trading", false: "Quotes and Trading · tradebench"}[dt]+"</title>")
		qs, err := e.f.Truth.GetQuotes(e.ctx, strings.Split(list, ","))
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			must(t, body, "<td>"+q.Symbol+"</td>", htmlEsc(q.CompanyName), money(q.Price), `name=symbol value=`+q.Symbol+`>`)
		}
	}
	// no symbols: DayTrader's default list
	code, body := b.page(dt, "quotes")
	wantStatus(t, "quotes default", code, http.StatusOK)
	must(t, body, "<td>s:0</td>", "<td>s:4</td>")
}

// testMarketSummaryPage checks the market summary against the service's.
func (e *env) testMarketSummaryPage(t *testing.T, b *browser, dt bool) {
	code, body := b.page(dt, "marketsummary")
	wantStatus(t, "market summary", code, http.StatusOK)
	ms, err := e.f.Truth.GetMarketSummary(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	must(t, body, ">"+ms.TSIA.String()+"<", ">"+ms.OpenTSIA.String()+"<", ">"+strconv.FormatInt(ms.Volume, 10)+"<")
	for _, q := range slices.Concat(ms.TopGainers, ms.TopLosers) {
		must(t, body, ">"+q.Symbol+"</a>")
	}
}

// testPublicPages checks the pages a visitor sees without logging in: the configuration and
// the registration form.
func (e *env) testPublicPages(t *testing.T, dt bool) {
	code, body := e.browser(t).get("/trade/config")
	wantStatus(t, "config", code, http.StatusOK)
	must(t, body, "Configuration")
	if e.f.Options.Config != nil {
		for _, sec := range e.f.Options.Config().Sections() {
			for _, s := range sec.Settings {
				must(t, body, "<th>"+htmlEsc(s.Name)+"</th>")
			}
		}
	}

	// the registration form
	code, body = e.browser(t).get(map[bool]string{true: "/daytrader/register.jsp", false: "/trade/register"}[dt])
	wantStatus(t, "register form", code, http.StatusOK)
	for _, f := range []string{"Full Name", "snail mail", "email", "user id", "passwd", "confirm passwd", "money", "Credit Card Number"} {
		must(t, body, `name="`+f+`"`)
	}
}

func (e *env) testBuySell(t *testing.T, dt bool, uid string) {
	b := e.browser(t)
	b.login(dt, uid, e.f.Password)
	before := e.account(t, uid)
	nHold := len(e.holdings(t, uid))

	// buy
	var body string
	var code int
	if dt {
		code, body = b.get("/daytrader/app?action=buy&symbol=s:3&quantity=100")
	} else {
		b.get("/trade/quotes?symbols=s:3")
		code, body = b.post("/trade/buy", url.Values{"symbol": {"s:3"}, "quantity": {"100"}, "csrf": {b.csrf()}})
	}
	wantStatus(t, "buy", code, http.StatusOK)
	must(t, body, "to buy 100 shares of s:3 has been submitted")
	buyID := orderID(t, body)
	buy := e.finalOrder(t, uid, buyID)
	if buy.Type != trade.Buy || buy.Symbol != "s:3" || buy.Quantity != 100 || buy.Fee != trade.OrderFee {
		t.Fatalf("buy order %+v", buy)
	}
	must(t, body, money(buy.Fee), "<td>buy</td>")
	afterBuy := e.account(t, uid)
	if want := before.Balance - buy.Total(); afterBuy.Balance != want {
		t.Errorf("balance after buy %s, want %s - %s = %s", afterBuy.Balance, before.Balance, buy.Total(), want)
	}

	// the new holding is on the portfolio page
	hs := e.holdings(t, uid)
	if len(hs) != nHold+1 {
		t.Fatalf("%d holdings after a buy, want %d", len(hs), nHold+1)
	}
	var h trade.Holding
	for _, x := range hs {
		if x.Symbol == "s:3" && x.Quantity == 100 && (buy.HoldingID == 0 || x.HoldingID == buy.HoldingID) {
			h = x
		}
	}
	if h.HoldingID == 0 {
		t.Fatalf("no holding of 100 s:3 after the buy: %+v", hs)
	}
	hid := strconv.FormatInt(h.HoldingID, 10)
	code, body = b.page(dt, "portfolio")
	wantStatus(t, "portfolio", code, http.StatusOK)
	must(t, body, "Number of holdings: "+strconv.Itoa(nHold+1))
	if dt {
		must(t, body, `app?action=sell&holdingID=`+hid+`"`)
	} else {
		must(t, body, `name="holdingID" value="`+hid+`"`)
	}

	// sell part of it (/trade/ only: DayTrader's sell link sells the whole holding)
	if !dt {
		code, body = b.post("/trade/sell", url.Values{"holdingID": {hid}, "quantity": {"40"}, "csrf": {b.csrf()}})
		wantStatus(t, "partial sell", code, http.StatusOK)
		must(t, body, "to sell 40 shares of s:3 has been submitted")
		e.finalOrder(t, uid, orderID(t, body))
		got, err := e.f.Truth.GetHolding(e.ctx, uid, h.HoldingID)
		if err != nil || got.Quantity != 60 {
			t.Fatalf("holding after selling 40 of 100: %+v, %v", got, err)
		}
		b.page(dt, "portfolio")
	}
	mid := e.account(t, uid)

	// sell the (rest of the) holding
	if dt {
		code, body = b.get("/daytrader/app?action=sell&holdingID=" + hid)
	} else {
		code, body = b.post("/trade/sell", url.Values{"holdingID": {hid}, "csrf": {b.csrf()}})
	}
	wantStatus(t, "sell", code, http.StatusOK)
	must(t, body, "shares of s:3 has been submitted", "to sell")
	sell := e.finalOrder(t, uid, orderID(t, body))
	if sell.Type != trade.Sell || sell.Symbol != "s:3" {
		t.Fatalf("sell order %+v", sell)
	}
	end := e.account(t, uid)
	if want := mid.Balance + sell.Total(); end.Balance != want {
		t.Errorf("balance after sell %s, want %s + %s = %s", end.Balance, mid.Balance, sell.Total(), want)
	}
	if n := len(e.holdings(t, uid)); n != nHold {
		t.Errorf("%d holdings after selling, want %d", n, nHold)
	}
	code, body = b.page(dt, "portfolio")
	wantStatus(t, "portfolio", code, http.StatusOK)
	mustNot(t, body, "holdingID="+hid+`"`, `value="`+hid+`"`)

	// the account page lists both orders, most recent first
	code, body = b.page(dt, "account")
	wantStatus(t, "account", code, http.StatusOK)
	si := strings.Index(body, "<tr><td>"+strconv.FormatInt(sell.OrderID, 10)+"</td>")
	bi := strings.Index(body, "<tr><td>"+strconv.FormatInt(buyID, 10)+"</td>")
	if si < 0 || bi < 0 || si > bi {
		t.Errorf("account page orders: sell at %d, buy at %d (want both, sell first)", si, bi)
	}
}

func (e *env) testAlerts(t *testing.T) {
	b := e.browser(t)
	b.login(false, "uid:11", e.f.Password)
	b.get("/trade/account") // shows (and so clears) any alerts of the loaded data
	b.get("/trade/quotes?symbols=s:2")
	code, body := b.post("/trade/buy", url.Values{"symbol": {"s:2"}, "quantity": {"10"}, "csrf": {b.csrf()}})
	wantStatus(t, "buy", code, http.StatusOK)
	id := strconv.FormatInt(orderID(t, body), 10)
	e.finalOrder(t, "uid:11", orderID(t, body))
	_, body = b.get("/trade/account")
	must(t, body, "Alert:", "<li>Order "+id+": buy 10 shares of s:2")
	_, body = b.get("/trade/account")
	mustNot(t, body, "Alert:")
}

func (e *env) testUpdateProfile(t *testing.T, dt bool, uid string) {
	b := e.browser(t)
	b.login(dt, uid, e.f.Password)
	form := url.Values{"userID": {uid}, "fullname": {"Ada O'Brien & Co"}, "address": {"1 Main St"}, "email": {"ada@example.com"},
		"creditcard": {"1234-5678"}, "password": {"n3w pass"}, "cpassword": {"n3w pass"}}
	var code int
	var body string
	if dt {
		form.Set("action", "update_profile")
		code, body = b.post("/daytrader/app", form)
	} else {
		b.get("/trade/account")
		form.Set("csrf", b.csrf())
		code, body = b.post("/trade/account", form)
	}
	wantStatus(t, "update", code, http.StatusOK)
	must(t, body, "Your profile has been updated", `value="Ada O&#39;Brien &amp; Co"`, `value="1 Main St"`)
	p, err := e.f.Truth.GetAccountProfileData(e.ctx, uid)
	if err != nil {
		t.Fatal(err)
	}
	if p.FullName != "Ada O'Brien & Co" || p.Address != "1 Main St" || p.Email != "ada@example.com" || p.CreditCard != "1234-5678" {
		t.Errorf("profile after update: %+v", p)
	}
	// the new password works, the old one no longer does
	e.browser(t).login(dt, uid, "n3w pass")
	code, _ = e.browser(t).post("/trade/login", url.Values{"uid": {uid}, "passwd": {e.f.Password}})
	wantStatus(t, "old password", code, http.StatusUnauthorized)
}

func (e *env) testRegister(t *testing.T) {
	for _, dt := range []bool{true, false} {
		uid := map[bool]string{true: "reg:dt", false: "reg:trade"}[dt]
		b := e.browser(t)
		form := url.Values{"Full Name": {"New User"}, "snail mail": {"2 Side St"}, "email": {"n@example.com"}, "user id": {uid},
			"passwd": {"pw1"}, "confirm passwd": {"pw1"}, "money": {"5000.50"}, "Credit Card Number": {"4444"}}
		var code int
		var body string
		if dt {
			code, body = b.get("/daytrader/register.jsp")
			wantStatus(t, "register.jsp", code, http.StatusOK)
			form.Set("action", "register")
			code, body = b.post("/daytrader/app", form)
		} else {
			code, body = b.post("/trade/register", form)
		}
		wantStatus(t, "register", code, http.StatusOK)
		must(t, body, "Registration operation succeeded", "Welcome "+uid+"</p>", "<td><b>Number of Holdings: </b>0</td>")
		a := e.account(t, uid)
		if a.Balance != 500050 || a.OpenBalance != 500050 || a.LoginCount != 1 {
			t.Errorf("registered account %+v", a)
		}
		// logged in: the session works for other pages
		code, body = b.page(dt, "account")
		wantStatus(t, "account after register", code, http.StatusOK)
		must(t, body, "<td>"+uid+"</td>", `value="New User"`)
	}
}

func (e *env) testLogout(t *testing.T) {
	for _, dt := range []bool{true, false} {
		uid := map[bool]string{true: "uid:9", false: "uid:10"}[dt]
		b := e.browser(t)
		b.login(dt, uid, e.f.Password)
		before := e.account(t, uid)
		var code int
		var body string
		if dt {
			code, body = b.get("/daytrader/app?action=logout")
			must(t, body, "DayTrader Login")
		} else {
			b.get("/trade/home")
			code, body = b.post("/trade/logout", url.Values{"csrf": {b.csrf()}})
			must(t, body, "tradebench Login")
		}
		wantStatus(t, "logout", code, http.StatusOK)
		must(t, body, "You have logged out")
		if a := e.account(t, uid); a.LogoutCount != before.LogoutCount+1 {
			t.Errorf("logout count %d, want %d", a.LogoutCount, before.LogoutCount+1)
		}
		_, body = b.page(dt, "home")
		must(t, body, "Login")
		mustNot(t, body, "Welcome "+uid)
	}
}

func (e *env) testRESTQuotes(t *testing.T) {
	b := e.browser(t)
	check := func(code int, body string, syms ...string) {
		t.Helper()
		wantStatus(t, "rest quotes", code, http.StatusOK)
		var got []map[string]any
		if err := jsonUnmarshal(body, &got); err != nil {
			t.Fatalf("rest quotes JSON: %v\n%s", err, body)
		}
		if len(got) != len(syms) {
			t.Fatalf("rest quotes: %d quotes, want %d: %s", len(got), len(syms), body)
		}
		qs, _ := e.f.Truth.GetQuotes(e.ctx, syms)
		for i, q := range qs {
			if got[i]["symbol"] != q.Symbol || got[i]["companyName"] != q.CompanyName {
				t.Errorf("quote %d: %v, want %+v", i, got[i], q)
			}
			if !strings.Contains(body, `"price":`+q.Price.String()) {
				t.Errorf("quote %s: price %s not an exact JSON number in %s", q.Symbol, q.Price, body)
			}
		}
	}
	code, body := b.get("/daytrader/rest/quotes/s:1,s:2")
	check(code, body, "s:1", "s:2")
	code, body = b.post("/daytrader/rest/quotes", url.Values{"symbols": {"s:3,s:4,s:5"}})
	check(code, body, "s:3", "s:4", "s:5")
	code, body = b.get("/daytrader/rest/quotes/nosuch")
	wantStatus(t, "rest unknown symbol", code, http.StatusNotFound)
	must(t, body, `"code":"not_found"`)
	code, _ = b.get("/daytrader/rest/quotes/")
	wantStatus(t, "rest no symbols", code, http.StatusBadRequest)
}

func dedupe(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}
