package verify

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// Level 1, pages: every servlet action and JSF page the built-in scenarios use answers with the
// page and the markers they check, for a browser with JavaScript off.

// pagesAccount is the shared account the level 1 checks log in, out and in again.
const pagesAccount = "pages"

// pages runs level 1 in the order a visitor meets the pages: registered, logged out, logged in,
// then each page the scenarios use.
func (v *verifier) pages() {
	const L, acct = 1, pagesAccount
	v.check("pages.register", L, "register (the registration form, sent to action=register) opens the new user's home page, logged in", func(c *ck) {
		v.shared(c, acct)
	})
	v.check("pages.logout", L, "logout (action=logout) answers with the login page", v.checkLogoutPage)
	v.check("pages.login", L, "the login page (/daytrader/app) has the login form; login (its fields, action=login) opens the home page "+
		"(Welcome USER)", v.checkLoginPage)
	v.pageCheck("pages.home", "home (action=home) greets the user (Welcome USER) and shows the "+
		"cash balance", "/daytrader/app?action=home", func(c *ck, p *page) error {
		u := v.accounts[acct].u
		if !p.doc().greets(u.uid) {
			return unreadable("greeting \"Welcome %s\"", u.uid)
		}
		_, err := p.doc().amount("cash balance")
		return err
	})
	v.pageCheck("pages.account", "account (action=account) shows the cash balance, the opening balance "+
		"and the orders table", "/daytrader/app?action=account", func(c *ck, p *page) error {
		d := p.doc()
		if _, err := d.amount("cash balance"); err != nil {
			return err
		}
		if _, err := d.amount("opening balance"); err != nil {
			return err
		}
		_, err := readOrders(d)
		return err
	})
	v.pageCheck("pages.portfolio", "portfolio (action=portfolio) shows the "+
		"holdings table", "/daytrader/app?action=portfolio", func(c *ck, p *page) error {
		_, err := readHoldings(p.doc())
		return err
	})
	syms := strings.Join(v.cfg.Symbols, ",")
	v.pageCheck("pages.quotes", "quotes (action=quotes&symbols=…) shows \"Quotes and Trading\" "+
		"and a row per symbol", "/daytrader/app?action=quotes&symbols="+url.QueryEscape(syms), func(c *ck, p *page) error {
		if !p.doc().says("Quotes and Trading") {
			return unreadable("\"Quotes and Trading\"")
		}
		qs, err := readQuotes(p.doc())
		if err != nil {
			return err
		}
		for _, s := range v.cfg.Symbols {
			if _, ok := qs[s]; !ok {
				return fmt.Errorf("no row for %s", s)
			}
		}
		return nil
	})
	v.pageCheck("pages.mksummary", "market summary (action=mksummary) shows the "+
		"top gainers and losers", "/daytrader/app?action=mksummary", func(c *ck, p *page) error {
		if _, err := readMovers(p.doc(), "Top gainers"); err != nil {
			return err
		}
		_, err := readMovers(p.doc(), "Top losers")
		return err
	})
	v.pageCheck("pages.no_javascript", "trading needs no JavaScript: the quotes page has a plain HTML buy form "+
		"(symbol, quantity)", "/daytrader/app?action=quotes&symbols="+url.QueryEscape(v.cfg.Symbols[0]), func(c *ck, p *page) error {
		if _, ok := p.doc().formWith("symbol="+v.cfg.Symbols[0], "quantity"); !ok {
			return fmt.Errorf("no <form> with the fields symbol (%s) and quantity", v.cfg.Symbols[0])
		}
		return nil
	})
	v.check("pages.jsf", L, "the JSF pages: welcome.faces's login form (every field it carries, the view state included) "+
		"logs in and tradehome.faces greets the user", func(c *ck) {
		if u, ok := v.shared(c, acct); ok {
			v.jsf(c, u)
		}
	})
	v.check("pages.rest_quotes", L, "the REST quotes (/daytrader/rest/quotes/SYMBOL) answer a JSON array with the quote", v.checkRESTQuotes)
}

// loggedIn logs u in again when an earlier check logged it out (a failure is recorded on c).
func (u *user) loggedIn(c *ck) bool {
	p, err := u.get(u.v.ctx, "/daytrader/app?action=home")
	if err == nil && p.status == 200 && !isLoginPage(p.doc()) {
		return true
	}
	return u.login(c)
}

// login logs u in as a browser does: the login page's form, with every field it carries and
// the user's id and password filled in (the contract's POST where the page shows no form).
func (u *user) login(c *ck) bool {
	p, err := u.follow(u.v.ctx, "/daytrader/app", []string{"uid", "passwd"}, "",
		url.Values{"action": {"login"}, "uid": {u.uid}, "passwd": {u.pass}}, "/daytrader/app")
	if err != nil {
		c.transport(p, err)
		return false
	}
	if p.status != 200 || !p.doc().greets(u.uid) {
		ev := p.evidence("200 and the home page (Welcome "+u.uid+")", fmt.Sprintf("status %d", p.status))
		c.fail(&ev, "logging in %s did not open the home page", u.uid)
		return false
	}
	return true
}

// jsf logs in through welcome.faces as a new visitor, as DayTrader's JSF JMeter plan does:
// the login form sent with every field it carries (login:submit, login_SUBMIT, the view state)
// and the session cookie of the GET that showed it.
func (v *verifier) jsf(c *ck, u *user) {
	w := v.newUser()
	defer w.close()
	p, err := w.get(v.ctx, "/daytrader/welcome.faces")
	if err != nil {
		c.transport(p, err)
		return
	}
	if p.status == 404 {
		c.skip("the target has no JSF pages (%s: 404)", p.req)
		return
	}
	f, ok := p.doc().formWith("login:uid", "login:password", "javax.faces.ViewState")
	if p.status != 200 || !ok {
		ev := p.evidence("200 and a login form (login:uid, login:password) carrying javax.faces.ViewState", fmt.Sprintf("status %d", p.status))
		c.fail(&ev, "welcome.faces has no login form with a view state")
		return
	}
	p, err = w.submit(v.ctx, &p, f, "login:submit", url.Values{"login:uid": {u.uid}, "login:password": {u.pass}})
	if err != nil {
		c.transport(p, err)
		return
	}
	if p.status != 200 || !p.doc().says(u.uid) {
		ev := p.evidence("200 and the home page of "+u.uid, fmt.Sprintf("status %d", p.status))
		c.fail(&ev, "logging in through welcome.faces failed")
		return
	}
	p, err = w.get(v.ctx, "/daytrader/tradehome.faces")
	if err != nil {
		c.transport(p, err)
		return
	}
	if p.status != 200 || !p.doc().greets(u.uid) {
		ev := p.evidence("200 and Welcome "+u.uid, fmt.Sprintf("status %d", p.status))
		c.fail(&ev, "tradehome.faces does not greet the logged-in user")
	}
}

// checkLogoutPage is pages.logout: the pages account logs out and is shown the login page.
func (v *verifier) checkLogoutPage(c *ck) {
	u, ok := v.shared(c, pagesAccount)
	if !ok {
		return
	}
	p, err := u.get(v.ctx, "/daytrader/app?action=logout")
	if err != nil {
		c.transport(p, err)
	} else if p.status != 200 || !isLoginPage(p.doc()) {
		ev := p.evidence("200 and the login form (fields uid, passwd)", fmt.Sprintf("status %d", p.status))
		c.fail(&ev, "logout did not show the login page")
	}
}

// checkLoginPage is pages.login: the application's root is the login page, and its form logs the
// pages account in again (pages.logout logged it out).
func (v *verifier) checkLoginPage(c *ck) {
	u, ok := v.shared(c, pagesAccount)
	if !ok {
		return
	}
	p, err := u.get(v.ctx, "/daytrader/app")
	if err != nil {
		c.transport(p, err)
		return
	}
	if p.status != 200 || !isLoginPage(p.doc()) {
		ev := p.evidence("200 and the login form (fields uid, passwd)", fmt.Sprintf("status %d", p.status))
		c.fail(&ev, "/daytrader/app without an action is not the login page")
		return
	}
	u.login(c)
}

// checkRESTQuotes is pages.rest_quotes, asked by a visitor who is not logged in; a 404 is a
// target without the REST API, skipped rather than failed.
func (v *verifier) checkRESTQuotes(c *ck) {
	w := v.newUser()
	defer w.close()
	p, err := w.get(v.ctx, "/daytrader/rest/quotes/"+url.PathEscape(v.cfg.Symbols[0]))
	if err != nil {
		c.transport(p, err)
		return
	}
	if p.status == 404 {
		c.skip("the target has no REST quotes (%s: 404)", p.req)
		return
	}
	var qs []struct {
		Symbol string      `json:"symbol"`
		Price  json.Number `json:"price"`
	}
	err = json.Unmarshal([]byte(p.body), &qs)
	if p.status != 200 || err != nil || len(qs) != 1 || qs[0].Symbol != v.cfg.Symbols[0] || qs[0].Price == "" {
		ev := p.evidence(`200 and [{"symbol":"`+v.cfg.Symbols[0]+`","price":…}]`, fmt.Sprintf("status %d", p.status))
		c.fail(&ev, "the REST quote of %s is not a JSON array with its price", v.cfg.Symbols[0])
	}
}

// pageCheck is a level 1 check of one page of the logged-in pages account: path must answer 200
// with the page itself, not the login page, and read must find on it what the scenarios look for
// (a misreading is the check's unreadable outcome, not a failure).
func (v *verifier) pageCheck(id, rule, path string, read func(c *ck, p *page) error) {
	v.check(id, 1, rule, func(c *ck) {
		u, ok := v.shared(c, pagesAccount)
		if !ok || !u.loggedIn(c) {
			return
		}
		p, err := u.get(v.ctx, path)
		if err != nil {
			c.transport(p, err)
			return
		}
		if p.status != 200 {
			ev := p.evidence("200", fmt.Sprintf("status %d", p.status))
			c.fail(&ev, "%s answered %d", path, p.status)
			return
		}
		if isLoginPage(p.doc()) {
			ev := p.evidence("the page of a logged-in user", "the login page")
			c.fail(&ev, "%s sent a logged-in user to the login page", path)
			return
		}
		if err := read(c, &p); err != nil {
			c.misread(&p, err, "%s", rule)
		}
	})
}
