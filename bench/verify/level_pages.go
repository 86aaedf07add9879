package verify

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// Level 1, pages: every servlet action and JSF page the built-in scenarios use answers with the
// page and the markers they check, for a browser with JavaScript off.

func (v *verifier) pages() {
	const L = 1
	var u *user
	defer func() {
		if u != nil {
			u.close()
		}
	}()
	v.check("pages.register", L, "register (action=register) opens the new user's home page, logged in", nil, func(c *ck) {
		u, _, _ = v.register(c, "pages")
	})
	v.check("pages.logout", L, "logout (action=logout) answers with the login page", []string{"pages.register"}, func(c *ck) {
		p, err := u.get(v.ctx, "/daytrader/app?action=logout")
		if err != nil {
			c.transport(p, err)
		} else if p.status != 200 || !isLoginPage(p.body) {
			ev := p.evidence("200 and the login form (fields uid, passwd)", fmt.Sprintf("status %d", p.status))
			c.fail(&ev, "logout did not show the login page")
		}
	})
	v.check("pages.login", L, "the login page (/daytrader/app) has the login form; login (action=login, uid, passwd) opens the home page (Welcome USER)", []string{"pages.register"}, func(c *ck) {
		p, err := u.get(v.ctx, "/daytrader/app")
		if err != nil {
			c.transport(p, err)
			return
		}
		if p.status != 200 || !isLoginPage(p.body) {
			ev := p.evidence("200 and the login form (fields uid, passwd)", fmt.Sprintf("status %d", p.status))
			c.fail(&ev, "/daytrader/app without an action is not the login page")
			return
		}
		u.login(c)
	})
	get := func(id, rule, path string, read func(c *ck, p page) error) {
		v.check(id, L, rule, []string{"pages.login"}, func(c *ck) {
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
			if isLoginPage(p.body) && !strings.Contains(path, "action=logout") {
				ev := p.evidence("the page of a logged-in user", "the login page")
				c.fail(&ev, "%s sent a logged-in user to the login page", path)
				return
			}
			if err := read(c, p); err != nil {
				ev := p.evidence(rule, err.Error())
				c.fail(&ev, "%v", err)
			}
		})
	}
	get("pages.home", "home (action=home) greets the user (Welcome USER) and shows the cash balance", "/daytrader/app?action=home", func(c *ck, p page) error {
		if !welcomes(p.body, u.uid) {
			return fmt.Errorf("no \"Welcome %s\"", u.uid)
		}
		_, err := labelMoney(p.body, "cash balance")
		return err
	})
	get("pages.account", "account (action=account) shows the cash balance, the opening balance and the orders table", "/daytrader/app?action=account", func(c *ck, p page) error {
		if _, err := labelMoney(p.body, "cash balance"); err != nil {
			return err
		}
		if _, err := labelMoney(p.body, "opening balance"); err != nil {
			return err
		}
		_, err := readOrders(p.body)
		return err
	})
	get("pages.portfolio", "portfolio (action=portfolio) shows the holdings table", "/daytrader/app?action=portfolio", func(c *ck, p page) error {
		_, err := readHoldings(p.body)
		return err
	})
	syms := strings.Join(v.cfg.Symbols, ",")
	get("pages.quotes", "quotes (action=quotes&symbols=…) shows \"Quotes and Trading\" and a row per symbol", "/daytrader/app?action=quotes&symbols="+url.QueryEscape(syms), func(c *ck, p page) error {
		if !strings.Contains(text(p.body), "Quotes and Trading") {
			return fmt.Errorf("no \"Quotes and Trading\"")
		}
		qs, err := readQuotes(p.body)
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
	get("pages.mksummary", "market summary (action=mksummary) shows the top gainers and losers", "/daytrader/app?action=mksummary", func(c *ck, p page) error {
		if _, err := readMovers(p.body, "Top gainers"); err != nil {
			return err
		}
		_, err := readMovers(p.body, "Top losers")
		return err
	})
	get("pages.no_javascript", "trading needs no JavaScript: the quotes page has a plain HTML buy form (symbol, quantity)", "/daytrader/app?action=quotes&symbols="+url.QueryEscape(v.cfg.Symbols[0]), func(c *ck, p page) error {
		l := strings.ToLower(p.body)
		if !strings.Contains(l, "<form") || !strings.Contains(l, `name="quantity"`) || !strings.Contains(l, `name="symbol"`) {
			return fmt.Errorf("no <form> with fields symbol and quantity")
		}
		return nil
	})
	v.check("pages.jsf", L, "the JSF pages: welcome.faces logs in (login:uid, login:password, javax.faces.ViewState) and tradehome.faces greets the user", []string{"pages.login"}, func(c *ck) {
		v.jsf(c, u)
	})
	v.check("pages.rest_quotes", L, "the REST quotes (/daytrader/rest/quotes/SYMBOL) answer a JSON array with the quote", nil, func(c *ck) {
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
	})
}

// login logs u in through the servlet contract; a failure is recorded on c.
func (u *user) login(c *ck) bool {
	p, err := u.post(u.v.ctx, "/daytrader/app", url.Values{"action": {"login"}, "uid": {u.uid}, "passwd": {u.pass}})
	if err != nil {
		c.transport(p, err)
		return false
	}
	if p.status != 200 || !welcomes(p.body, u.uid) {
		ev := p.evidence("200 and the home page (Welcome "+u.uid+")", fmt.Sprintf("status %d", p.status))
		c.fail(&ev, "logging in %s did not open the home page", u.uid)
		return false
	}
	return true
}

var reViewState = regexp.MustCompile(`(?is)<input[^>]*name="javax\.faces\.ViewState"[^>]*>`)
var reValue = regexp.MustCompile(`(?is)\bvalue="([^"]*)"`)

// viewState is the JSF view state a page carries.
func viewState(body string) (string, bool) {
	in := reViewState.FindString(body)
	m := reValue.FindStringSubmatch(in)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// jsf logs in through welcome.faces as a new visitor, as DayTrader's JSF JMeter plan does.
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
	vs, ok := viewState(p.body)
	if p.status != 200 || !ok {
		ev := p.evidence("200 and a login form carrying javax.faces.ViewState", fmt.Sprintf("status %d", p.status))
		c.fail(&ev, "welcome.faces has no login form with a view state")
		return
	}
	p, err = w.post(v.ctx, "/daytrader/welcome.faces", url.Values{"login:uid": {u.uid}, "login:password": {u.pass},
		"login_SUBMIT": {"1"}, "javax.faces.ViewState": {vs}})
	if err != nil {
		c.transport(p, err)
		return
	}
	if p.status != 200 || !strings.Contains(p.body, u.uid) || isLoginPage(p.body) {
		ev := p.evidence("200 and the home page of "+u.uid, fmt.Sprintf("status %d", p.status))
		c.fail(&ev, "logging in through welcome.faces failed")
		return
	}
	p, err = w.get(v.ctx, "/daytrader/tradehome.faces")
	if err != nil {
		c.transport(p, err)
		return
	}
	if p.status != 200 || !welcomes(p.body, u.uid) {
		ev := p.evidence("200 and Welcome "+u.uid, fmt.Sprintf("status %d", p.status))
		c.fail(&ev, "tradehome.faces does not greet the logged-in user")
	}
}
