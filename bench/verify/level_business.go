package verify

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/tradebench/tradebench/internal/money"
)

// Level 2, business rules, observed through the contract: what the pages of one account say
// before and after it trades.

// orderFee is Trade's commission on every buy and sell.
var orderFee = money.Cents(2495)

// tradeFlow is what one buy and one sell of a fresh account showed.
type tradeFlow struct {
	u               *user
	s0, s1, s2      snapshot // before the buy, after it completed, after the sell completed
	buy, sell       placed
	buyOK, sellOK   bool // the order was confirmed
	buyDone         bool // the buy completed within the bound
	sellDone        bool // the sell completed within the bound
	buyWait, sellWt time.Duration
	err             error
	homes           []page // the home page at each snapshot
}

func (v *verifier) business() {
	const L = 2
	f := &tradeFlow{}
	defer func() {
		if f.u != nil {
			f.u.close()
		}
	}()
	v.check("business.register_balance", L, "registration opens an account whose cash and opening balance are the stated amount ("+openBalance+")", nil, func(c *ck) {
		var ok bool
		if f.u, _, ok = v.register(c, "business"); !ok {
			return
		}
		s, ok := f.u.snap(c)
		if !ok {
			return
		}
		want, _ := money.Parse(openBalance)
		if s.cash != want || s.open != want {
			ev := s.account.evidence("cash balance and opening balance "+want.String(), fmt.Sprintf("cash balance %s, opening balance %s", s.cash, s.open))
			c.fail(&ev, "a new account opened with %s cash (opening balance %s), not the %s registered", s.cash, s.open, want)
		}
		if len(s.holdings) != 0 || len(s.orders) != 0 {
			ev := s.portfolio.evidence("no holdings and no orders", fmt.Sprintf("%d holdings, %d orders", len(s.holdings), len(s.orders)))
			c.fail(&ev, "a new account already has holdings or orders")
		}
	})
	v.check("business.orders_complete", L, "orders reach a completed state: at once in synchronous order mode, else within the order bound", []string{"business.register_balance"}, func(c *ck) {
		v.trade(c, f)
	})
	v.check("business.buy", L, "a buy takes price × quantity + commission from the cash and creates a holding of that quantity at that price", []string{"business.orders_complete"}, func(c *ck) {
		o, _ := f.s1.order(f.buy.id)
		want := f.s0.cash - o.Price.Times(o.Quantity) - o.Fee
		if f.s1.cash != want {
			ev := f.s1.account.evidence(fmt.Sprintf("cash %s − %s × %d − fee %s = %s", f.s0.cash, o.Price, o.Quantity, o.Fee, want), "cash balance "+f.s1.cash.String())
			c.fail(&ev, "after buying %d %s at %s the cash went from %s to %s, not %s", o.Quantity, o.Symbol, o.Price, f.s0.cash, f.s1.cash, want)
		}
		added := newHoldings(f.s0, f.s1)
		if len(added) != 1 || added[0].Symbol != o.Symbol || added[0].Quantity != o.Quantity || added[0].PurchasePrice != o.Price {
			ev := f.s1.portfolio.evidence(fmt.Sprintf("one new holding: %d %s at %s", o.Quantity, o.Symbol, o.Price), fmt.Sprintf("new holdings %+v", added))
			c.fail(&ev, "the buy did not create exactly one holding of %d %s at %s", o.Quantity, o.Symbol, o.Price)
		}
	})
	v.check("business.sell", L, "a sell adds price × quantity − commission to the cash and removes the holding", []string{"business.buy"}, func(c *ck) {
		if !f.sellOK || !f.sellDone {
			c.skip("the sell did not complete (see business.orders_complete)")
			return
		}
		o, _ := f.s2.order(f.sell.id)
		want := f.s1.cash + o.Price.Times(o.Quantity) - o.Fee
		if f.s2.cash != want {
			ev := f.s2.account.evidence(fmt.Sprintf("cash %s + %s × %d − fee %s = %s", f.s1.cash, o.Price, o.Quantity, o.Fee, want), "cash balance "+f.s2.cash.String())
			c.fail(&ev, "after selling %d %s at %s the cash went from %s to %s, not %s", o.Quantity, o.Symbol, o.Price, f.s1.cash, f.s2.cash, want)
		}
		if h, still := f.s2.holding(o.holdingOf(f)); still {
			ev := f.s2.portfolio.evidence("the sold holding gone", fmt.Sprintf("holding %d: %d %s", h.ID, h.Quantity, h.Symbol))
			c.fail(&ev, "the sold holding %d is still in the portfolio", h.ID)
		}
	})
	v.check("business.commission", L, "every buy and sell is charged the commission of "+orderFee.String(), []string{"business.register_balance"}, func(c *ck) {
		if !f.buyOK {
			c.skip("no order was placed (see business.orders_complete)")
			return
		}
		for _, pl := range []placed{f.buy, f.sell} {
			if pl.id == 0 {
				continue
			}
			o, found := f.last().order(pl.id)
			if !found {
				continue
			}
			if o.Fee != orderFee {
				ev := pl.page.evidence("fee "+orderFee.String(), "fee "+o.Fee.String())
				c.fail(&ev, "order %d (%s %d %s) was charged %s, not the commission of %s", o.ID, o.Type, o.Quantity, o.Symbol, o.Fee, orderFee)
			}
		}
	})
	v.check("business.pages_current", L, "no page is served from a stale cache: after each trade the home page shows the cash and number of holdings the account and portfolio pages show", []string{"business.orders_complete"}, func(c *ck) {
		for i, s := range []snapshot{f.s0, f.s1, f.s2} {
			if i >= len(f.homes) || s.account.req == "" {
				continue
			}
			h := f.homes[i]
			cash, err := labelMoney(h.body, "cash balance")
			n, nerr := labelCount(h.body, "number of holdings")
			if err != nil || nerr != nil {
				ev := h.evidence("the cash balance and number of holdings", fmt.Sprint(err, nerr))
				c.fail(&ev, "the home page cannot be read")
				return
			}
			if cash != s.cash || n != int64(len(s.holdings)) {
				ev := h.evidence(fmt.Sprintf("cash balance %s and %d holdings (the account and portfolio pages)", s.cash, len(s.holdings)),
					fmt.Sprintf("cash balance %s and %d holdings", cash, n))
				c.fail(&ev, "the home page shows cash %s and %d holdings where the account and portfolio pages show %s and %d", cash, n, s.cash, len(s.holdings))
				return
			}
		}
	})
	v.check("business.account_totals", L, "the totals equal cash plus holdings: the home page's sum of cash and holdings, the portfolio's market value at the current quotes", []string{"business.orders_complete"}, func(c *ck) {
		v.totals(c, f.u)
	})
	v.check("business.market_summary", L, "the market summary agrees with the quotes it lists: gainers by change down, losers up, each price − change the quote's open", nil, func(c *ck) {
		v.marketSummary(c)
	})
	v.check("business.profile_update", L, "a profile update (action=update_profile) persists: the account page shows the new values", []string{"business.register_balance"}, func(c *ck) {
		v.profile(c, f.u)
	})
	v.check("business.logout", L, "logout ends the session: the old session cookie is refused afterwards", []string{"business.register_balance"}, func(c *ck) {
		old := f.u.cookies()
		p, err := f.u.get(v.ctx, "/daytrader/app?action=logout")
		if err != nil {
			c.transport(p, err)
			return
		}
		replay := v.withCookies(old)
		defer replay.close()
		p, err = replay.get(v.ctx, "/daytrader/app?action=account")
		if err != nil {
			c.transport(p, err)
			return
		}
		_, cashErr := labelMoney(p.body, "cash balance")
		if p.status < 500 && (isLoginPage(p.body) || p.status >= 400) && cashErr != nil {
			return // refused: the login page (or a 4xx), and no account shown
		}
		ev := p.evidence("the login page (the session has ended)", fmt.Sprintf("status %d", p.status))
		c.fail(&ev, "the session cookie of %s still opened its account page after logout", f.u.uid)
	})
}

// last is the latest snapshot taken.
func (f *tradeFlow) last() snapshot {
	switch {
	case f.s2.account.req != "":
		return f.s2
	case f.s1.account.req != "":
		return f.s1
	}
	return f.s0
}

// holdingOf is the holding a sell order sold: the one the flow bought.
func (o order) holdingOf(f *tradeFlow) int64 {
	if added := newHoldings(f.s0, f.s1); len(added) == 1 {
		return added[0].ID
	}
	return 0
}

// newHoldings are the holdings of b that a did not have.
func newHoldings(a, b snapshot) []holding {
	var out []holding
	for _, h := range b.holdings {
		if _, had := a.holding(h.ID); !had {
			out = append(out, h)
		}
	}
	return out
}

var reHoldings = regexp.MustCompile(`(?i)number\s+of\s+holdings\s*:?\s*([0-9][0-9,]*)`)

// labelCount is the whole number after label on the page ("number of holdings").
func labelCount(body, label string) (int64, error) {
	m := reHoldings.FindStringSubmatch(text(body))
	if m == nil {
		return 0, fmt.Errorf("the page shows no %q", label)
	}
	return parseCount(m[1])
}

// home reads u's home page for the snapshot comparisons (a failure shows in pages_current).
func (u *user) home() page {
	p, _ := u.get(u.v.ctx, "/daytrader/app?action=home")
	return p
}

// trade buys and then sells the bought holding, waiting for each order to complete; the
// completion is this check's, the arithmetic the other business checks'.
func (v *verifier) trade(c *ck, f *tradeFlow) {
	u := f.u
	var ok bool
	f.homes = append(f.homes, u.home())
	if f.s0, ok = u.snap(c); !ok {
		return
	}
	if f.buy, f.buyOK = u.buy(c, v.cfg.Symbols[0], 10); !f.buyOK {
		return
	}
	start := time.Now()
	if !v.completes(c, f.buy, "buy", u, &f.s1) {
		return
	}
	f.buyDone, f.buyWait = true, time.Since(start)
	f.homes = append(f.homes, u.home())
	added := newHoldings(f.s0, f.s1)
	if len(added) != 1 {
		return // business.buy says what is wrong
	}
	if f.sell, f.sellOK = u.sell(c, added[0].ID); !f.sellOK {
		return
	}
	start = time.Now()
	if !v.completes(c, f.sell, "sell", u, &f.s2) {
		return
	}
	f.sellDone, f.sellWt = true, time.Since(start)
	f.homes = append(f.homes, u.home())
}

// completes waits for one order to complete and reads the account after it into s.
func (v *verifier) completes(c *ck, pl placed, what string, u *user, s *snapshot) bool {
	if v.syncOrders {
		if os, err := readOrders(pl.page.body); err == nil && len(os) > 0 && !os[0].done() {
			ev := pl.page.evidence("a completed order (the target's orders are synchronous, says its /trade/config.json)", "status "+os[0].Status)
			c.fail(&ev, "the %s order %d was not completed at once in synchronous order mode", what, pl.id)
			return false
		}
	}
	snap, open, ok := u.waitFinal(c, []int64{pl.id})
	if !ok {
		return false
	}
	*s = snap
	o, found := snap.order(pl.id)
	switch {
	case len(open) > 0:
		got := "not listed on the account page"
		if found {
			got = "status " + o.Status
		}
		ev := snap.account.evidence(fmt.Sprintf("order %d closed or completed within %v", pl.id, v.cfg.OrderBound), got)
		c.fail(&ev, "the %s order %d did not complete within %v", what, pl.id, v.cfg.OrderBound)
		return false
	case !o.done():
		ev := snap.account.evidence(fmt.Sprintf("order %d closed or completed", pl.id), "status "+o.Status)
		c.fail(&ev, "the %s order %d ended %s, not completed", what, pl.id, o.Status)
		return false
	}
	return true
}

var reSum = `sum\s+of\s+cash\s*(?:/|and)\s*holdings`

// totals: the home page's sum is its cash plus its holdings; the portfolio's market value is
// the sum of each holding at its current price, and each current price is the quote's. A
// holding is bought first, so there is something to value.
func (v *verifier) totals(c *ck, u *user) {
	pl, ok := u.buy(c, v.cfg.Symbols[1], 5)
	if !ok {
		return
	}
	if s, open, ok := u.waitFinal(c, []int64{pl.id}); !ok || len(open) > 0 {
		if ok {
			ev := s.account.evidence(fmt.Sprintf("order %d completed within %v", pl.id, v.cfg.OrderBound), "not completed")
			c.fail(&ev, "the buy to value did not complete")
		}
		return
	}
	h := u.home()
	cash, err1 := labelMoney(h.body, "cash balance")
	held, err2 := labelMoney(h.body, "total of holdings")
	sum, err3 := labelMoneyRe(h.body, reSum)
	if err1 != nil || err2 != nil || err3 != nil {
		ev := h.evidence("cash balance, total of holdings, sum of cash and holdings", fmt.Sprint(err1, err2, err3))
		c.fail(&ev, "the home page's totals cannot be read")
		return
	}
	if sum != cash+held {
		ev := h.evidence(fmt.Sprintf("sum of cash and holdings = %s + %s = %s", cash, held, cash+held), "sum "+sum.String())
		c.fail(&ev, "the home page's sum of cash and holdings is %s, not %s + %s", sum, cash, held)
	}
	// prices move with every trade on a shared target: read the portfolio and the quotes
	// again when they disagree, a few times
	var last string
	for range 3 {
		p, err := u.get(v.ctx, "/daytrader/app?action=portfolio")
		if err != nil {
			c.transport(p, err)
			return
		}
		hs, err := readHoldings(p.body)
		if err != nil || len(hs) == 0 {
			ev := p.evidence("the holding just bought", fmt.Sprint(err))
			c.fail(&ev, "the portfolio cannot be read")
			return
		}
		value, err := labelRowMoney(p.body, colMarketValue)
		if err != nil {
			ev := p.evidence("the total market value", err.Error())
			c.fail(&ev, "the portfolio shows no total market value")
			return
		}
		var syms []string
		var want money.Money
		for _, x := range hs {
			want += x.CurrentPrice.Times(x.Quantity)
			if !slices.Contains(syms, x.Symbol) {
				syms = append(syms, x.Symbol)
			}
		}
		if value != want {
			ev := p.evidence("market value = Σ quantity × current price = "+want.String(), "market value "+value.String())
			c.fail(&ev, "the portfolio's market value is %s, not the %s its holdings are worth at their current prices", value, want)
			return
		}
		q, err := u.get(v.ctx, "/daytrader/app?action=quotes&symbols="+url.QueryEscape(strings.Join(syms, ",")))
		if err != nil {
			c.transport(q, err)
			return
		}
		qs, err := readQuotes(q.body)
		if err != nil {
			ev := q.evidence("the quotes", err.Error())
			c.fail(&ev, "the quotes page cannot be read")
			return
		}
		last = ""
		for _, x := range hs {
			if qq, ok := qs[x.Symbol]; !ok || qq.Price != x.CurrentPrice {
				last = fmt.Sprintf("holding %d of %s valued at %s, the quote is %s", x.ID, x.Symbol, x.CurrentPrice, qq.Price)
			}
		}
		if last == "" {
			return
		}
	}
	c.fail(nil, "the portfolio does not value its holdings at the current quotes: %s", last)
}

// labelMoneyRe is labelMoney with the label as a regular expression.
func labelMoneyRe(body, label string) (money.Money, error) {
	m := regexp.MustCompile(`(?i)` + label + `\s*:?\s*` + reMoney).FindStringSubmatch(text(body))
	if m == nil {
		return 0, fmt.Errorf("the page shows no amount after %q", label)
	}
	return parseMoney(m[1])
}

// labelRowMoney is the portfolio's total of a column: the row after the holdings whose first
// cell says "Total" (tradebench, DayTrader) — the amount in the column's place counted from
// the right, as the total row spans the first columns.
func labelRowMoney(body string, col column) (money.Money, error) {
	rs := rows(body)
	hdr, hi := -1, -1
	for i, r := range rs {
		for j, c := range r.cells {
			if col.matches(c) {
				hdr, hi = i, j
			}
		}
		if hdr >= 0 {
			break
		}
	}
	if hdr < 0 {
		return 0, fmt.Errorf("no %q column", col[0])
	}
	fromRight := len(rs[hdr].cells) - hi
	for _, r := range rs[hdr+1:] {
		if len(r.cells) == 0 || !strings.HasPrefix(strings.ToLower(r.cells[0]), "total") {
			continue
		}
		if k := len(r.cells) - fromRight; k >= 0 {
			return parseMoney(r.cells[k])
		}
	}
	return 0, fmt.Errorf("no total row")
}

// marketSummary: gainers ordered by change, highest first; losers lowest first; no loser
// above a gainer; and each listed price − change is that quote's open on the quotes page (the
// open does not move, so this holds whether or not the summary is cached).
func (v *verifier) marketSummary(c *ck) {
	// the summary is a page of a logged-in user: log in to an account of verify's own
	if len(v.res.Accounts) == 0 {
		c.skip("no account to log in with")
		return
	}
	w := v.newUser()
	defer w.close()
	w.uid, w.pass = v.res.Accounts[len(v.res.Accounts)-1], "vf-"+v.run
	if !w.login(c) {
		return
	}
	p, err := w.get(v.ctx, "/daytrader/app?action=mksummary")
	if err != nil {
		c.transport(p, err)
		return
	}
	gain, err1 := readMovers(p.body, "Top gainers")
	lose, err2 := readMovers(p.body, "Top losers")
	if p.status != 200 || err1 != nil || err2 != nil {
		ev := p.evidence("200, top gainers and top losers", fmt.Sprint(p.status, err1, err2))
		c.fail(&ev, "the market summary cannot be read")
		return
	}
	if !slices.IsSortedFunc(gain, func(a, b mover) int { return int(b.Change - a.Change) }) {
		ev := p.evidence("top gainers by change, highest first", fmt.Sprintf("%+v", gain))
		c.fail(&ev, "the top gainers are not ordered by change")
	}
	if !slices.IsSortedFunc(lose, func(a, b mover) int { return int(a.Change - b.Change) }) {
		ev := p.evidence("top losers by change, lowest first", fmt.Sprintf("%+v", lose))
		c.fail(&ev, "the top losers are not ordered by change")
	}
	if len(gain) > 0 && len(lose) > 0 && lose[0].Change > gain[0].Change {
		ev := p.evidence("no loser above the top gainer", fmt.Sprintf("loser %s %s, gainer %s %s", lose[0].Symbol, lose[0].Change, gain[0].Symbol, gain[0].Change))
		c.fail(&ev, "a top loser changed more than the top gainer")
	}
	all := append(slices.Clone(gain), lose...)
	if len(all) == 0 {
		c.skip("the market summary lists no quotes (DayTrader's summary is empty on a data set of 100 quotes or fewer)")
		return
	}
	var syms []string
	for _, m := range all {
		if !slices.Contains(syms, m.Symbol) {
			syms = append(syms, m.Symbol)
		}
	}
	q, err := w.get(v.ctx, "/daytrader/app?action=quotes&symbols="+url.QueryEscape(strings.Join(syms, ",")))
	if err != nil {
		c.transport(q, err)
		return
	}
	qs, err := readQuotes(q.body)
	if err != nil {
		ev := q.evidence("the listed symbols' quotes", err.Error())
		c.fail(&ev, "the quotes page cannot be read")
		return
	}
	for _, m := range all {
		qq, ok := qs[m.Symbol]
		if !ok {
			ev := q.evidence("a quote for "+m.Symbol, "none")
			c.fail(&ev, "the market summary lists %s, which has no quote", m.Symbol)
			return
		}
		if m.Price-m.Change != qq.Open {
			ev := q.evidence(fmt.Sprintf("%s open = summary price %s − change %s = %s", m.Symbol, m.Price, m.Change, m.Price-m.Change), "open "+qq.Open.String())
			c.fail(&ev, "the market summary's %s (price %s, change %s) does not agree with its quote (open %s)", m.Symbol, m.Price, m.Change, qq.Open)
			return
		}
	}
}

// profile updates u's profile and reads it back from the account page.
func (v *verifier) profile(c *ck, u *user) {
	name, addr, email, card := "Verified "+v.run, "2 Verify Road "+v.run, "vf2"+v.run+"@example.com", "4444-3333-2222-1111"
	p, err := u.post(v.ctx, "/daytrader/app", url.Values{"action": {"update_profile"}, "userID": {u.uid}, "fullname": {name},
		"password": {u.pass}, "cpassword": {u.pass}, "address": {addr}, "email": {email}, "creditcard": {card}})
	if err != nil {
		c.transport(p, err)
		return
	}
	if p.status != 200 {
		ev := p.evidence("200", fmt.Sprintf("status %d", p.status))
		c.fail(&ev, "the profile update answered %d", p.status)
		return
	}
	a, err := u.get(v.ctx, "/daytrader/app?action=account")
	if err != nil {
		c.transport(a, err)
		return
	}
	for _, want := range []string{name, addr, email, card} {
		if !strings.Contains(a.body, want) {
			ev := a.evidence("the account page showing "+want, "not shown")
			c.fail(&ev, "the updated profile value %q is not on the account page", want)
			return
		}
	}
}
