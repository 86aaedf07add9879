package verify

import (
	"fmt"
	"net/url"
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
	homes           []page // the home page at each snapshot
	// why is the first fact the flow could not establish, for the checks that need it
	why string
}

// missing records the first fact the flow could not establish.
func (f *tradeFlow) missing(format string, args ...any) {
	if f.why == "" {
		f.why = fmt.Sprintf(format, args...)
	}
}

// business runs level 2 as a table of checks: the first two make the one trade flow (an account,
// a buy, a sell) that the next four read, each check skipped naming what the flow could not
// establish; the rest use shared accounts of their own.
func (v *verifier) business() {
	const L = 2
	f := &tradeFlow{}
	defer func() {
		if f.u != nil {
			f.u.close()
		}
	}()
	defer v.closeAccounts()
	v.check("business.register_balance", L, "registration opens an account whose cash and opening balance are the stated amount ("+
		openBalance+")", func(c *ck) { v.registerBalance(c, f) })
	v.check("business.orders_complete", L, "orders reach a completed state: at once in synchronous order mode, "+
		"else within the order bound", func(c *ck) {
		if f.u == nil {
			c.skip("%s", f.why)
			return
		}
		v.trade(c, f)
	})
	v.check("business.buy", L,
		"a buy takes price × quantity + commission from the cash and creates a holding of that quantity at that price", f.checkBuy)
	v.check("business.sell", L, "a sell adds price × quantity − commission to the cash and removes the holding", f.checkSell)
	v.check("business.commission", L, "every buy and sell is charged the commission of "+orderFee.String(), f.checkCommission)
	v.check("business.pages_current", L,
		"no page is served from a stale cache: after each trade the home page shows the cash and number of holdings the account and "+
			"portfolio pages show", f.checkPagesCurrent)
	v.check("business.account_totals", L, "the totals equal cash plus holdings: the home page's sum of cash and holdings, "+
		"the portfolio's market value at the current quotes", func(c *ck) {
		if u, ok := v.shared(c, "totals"); ok {
			v.totals(c, u)
		}
	})
	v.check("business.market_summary", L, "the market summary agrees with the quotes it lists: gainers by change down, losers up, "+
		"each price − change the quote's open", func(c *ck) {
		if u, ok := v.shared(c, "summary"); ok {
			v.marketSummary(c, u)
		}
	})
	v.check("business.profile_update", L, "a profile update (action=update_profile) persists: the account page shows the new values", func(c *ck) {
		if u, ok := v.shared(c, "profile"); ok {
			v.profile(c, u)
		}
	})
	v.check("business.logout", L, "logout ends the session: the old session cookie is refused afterwards", v.checkLogout)
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

// home reads u's home page for the snapshot comparisons (a failure shows in pages_current).
func (u *user) home() page {
	p, _ := u.get(u.v.ctx, "/daytrader/app?action=home")
	return p
}

// trade buys and then sells the bought holding, waiting for each order to complete; the
// completion is this check's, the arithmetic the other business checks'. What it could not
// establish is noted on f for them.
func (v *verifier) trade(c *ck, f *tradeFlow) {
	u := f.u
	var ok bool
	buy := fmt.Sprintf("10 %s", v.cfg.Symbols[0])
	f.homes = append(f.homes, u.home())
	if f.s0, ok = u.snap(c); !ok {
		f.missing("the account of %s could not be read before the buy: %s", u.uid, c.Reason)
		return
	}
	if f.buy, f.buyOK = u.buy(c, v.cfg.Symbols[0], 10); !f.buyOK {
		f.missing("no buy of %s was confirmed: %s", buy, c.Reason)
		return
	}
	start := time.Now()
	if !v.completes(c, f.buy, "buy", u, &f.s1) {
		f.missing("the buy of %s (order %d) did not complete: %s", buy, f.buy.id, c.Reason)
		return
	}
	f.buyDone, f.buyWait = true, time.Since(start)
	f.homes = append(f.homes, u.home())
	added := newHoldings(f.s0, f.s1)
	if len(added) != 1 {
		f.missing("no holding to sell: the portfolio lists %d new holdings after the buy of %s", len(added), buy)
		return // business.buy says what is wrong
	}
	if f.sell, f.sellOK = u.sell(c, added[0]); !f.sellOK {
		f.missing("the sell of holding %d was not confirmed: %s", added[0].ID, c.Reason)
		return
	}
	start = time.Now()
	if !v.completes(c, f.sell, "sell", u, &f.s2) {
		f.missing("the sell of holding %d (order %d) did not complete: %s", added[0].ID, f.sell.id, c.Reason)
		return
	}
	f.sellDone, f.sellWt = true, time.Since(start)
	f.homes = append(f.homes, u.home())
}

// completes waits for one order to complete and reads the account after it into s.
func (v *verifier) completes(c *ck, pl placed, what string, u *user, s *snapshot) bool {
	if v.syncOrders {
		if os, err := readOrders(pl.page.doc()); err == nil && len(os) > 0 && !os[0].done() {
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
	d := h.doc()
	cash, err := d.amount("cash balance")
	if err != nil {
		c.misread(&h, err, "the cash balance on the home page")
		return
	}
	held, err := d.amount("total of holdings")
	if err != nil {
		c.misread(&h, err, "the total of holdings on the home page")
		return
	}
	sum, err := d.amount("sum of cash and holdings", "sum of cash/holdings")
	if err != nil {
		c.misread(&h, err, "the sum of cash and holdings on the home page")
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
		hs, err := readHoldings(p.doc())
		if err != nil {
			c.misread(&p, err, "the holdings on the portfolio page")
			return
		}
		if len(hs) == 0 {
			ev := p.evidence("the holding just bought", "no holdings")
			c.fail(&ev, "the portfolio lists no holding after a completed buy")
			return
		}
		value, err := totalOf(p.doc(), colMarketValue)
		if err != nil {
			c.misread(&p, err, "the portfolio's total market value")
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
		qs, err := readQuotes(q.doc())
		if err != nil {
			c.misread(&q, err, "the quotes of the holdings")
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

// totalOf is the holdings table's total of a column: the amount, in the row whose cell says
// "Total" (tradebench, DayTrader), that stands in the column's place (colspans counted).
func totalOf(d *doc, col column) (money.Money, error) {
	_, heading, ok := d.table(nil, []column{colHoldingID, col}, nil)
	if !ok {
		return 0, unreadable("holdings table with a %q column", col[0])
	}
	at, _ := headingCols(heading, []column{col}, []column{col})
	for _, tr := range tableRows(heading.Parent) {
		cells, cols := rowCells(tr)
		total := false
		for _, c := range cells {
			if key(textOf(c)) == "total" {
				total = true
			}
		}
		if !total {
			continue
		}
		cell := cellAt(cells, cols, at[0])
		if cell == nil {
			return 0, unreadable("total %s (the total row has no cell in its column)", col[0])
		}
		m, err := parseMoney(firstAmount(textOf(cell)))
		if err != nil {
			return 0, unreadable("total %s (it shows %q)", col[0], clean(textOf(cell), 40))
		}
		return m, nil
	}
	return 0, unreadable("total row under the holdings")
}

// summaryPoll is how often the market summary is read again while it lists nothing.
const summaryPoll = 500 * time.Millisecond

// marketSummary: gainers ordered by change, highest first; losers lowest first; no loser
// above a gainer; and each listed price − change is that quote's open on the quotes page (the
// open does not move, so this holds whether or not the summary is cached). An implementation
// may compute its summary on a timer (DayTrader does): while it lists no quote, it is read
// again, up to the summary bound, before the check decides.
func (v *verifier) marketSummary(c *ck, w *user) {
	var p page
	var gain, lose []mover
	deadline := time.Now().Add(v.cfg.SummaryBound)
	for {
		var err error
		if p, err = w.get(v.ctx, "/daytrader/app?action=mksummary"); err != nil {
			c.transport(p, err)
			return
		}
		if p.status != 200 {
			ev := p.evidence("200 and the market summary", fmt.Sprintf("status %d", p.status))
			c.fail(&ev, "the market summary answered %d", p.status)
			return
		}
		if gain, err = readMovers(p.doc(), "Top gainers"); err != nil {
			c.misread(&p, err, "the top gainers on the market summary")
			return
		}
		if lose, err = readMovers(p.doc(), "Top losers"); err != nil {
			c.misread(&p, err, "the top losers on the market summary")
			return
		}
		if len(gain)+len(lose) > 0 || !time.Now().Before(deadline) {
			break
		}
		select {
		case <-v.ctx.Done():
			return
		case <-time.After(summaryPoll):
		}
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
		ev := p.evidence("no loser above the top gainer",
			fmt.Sprintf("loser %s %s, gainer %s %s", lose[0].Symbol, lose[0].Change, gain[0].Symbol, gain[0].Change))
		c.fail(&ev, "a top loser changed more than the top gainer")
	}
	all := append(slices.Clone(gain), lose...)
	if len(all) == 0 {
		c.skip("the market summary listed no quotes in %v of reading it again every %v (a summary computed on a timer may be empty for a "+
			"while; DayTrader's is empty on a data set of 100 quotes or fewer, and its page fills the lists by "+
			"script)", v.cfg.SummaryBound, summaryPoll)
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
	qs, err := readQuotes(q.doc())
	if err != nil {
		c.misread(&q, err, "the listed symbols' quotes")
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
			ev := q.evidence(fmt.Sprintf("%s open = summary price %s − change %s = %s", m.Symbol, m.Price, m.Change, m.Price-m.Change),
				"open "+qq.Open.String())
			c.fail(&ev, "the market summary's %s (price %s, change %s) does not agree with its quote (open %s)", m.Symbol, m.Price, m.Change, qq.Open)
			return
		}
	}
}

// profile updates u's profile and reads it back from the account page: the account page's
// profile form, with every field it carries and the new values filled in (the contract's POST
// where the page shows no such form).
func (v *verifier) profile(c *ck, u *user) {
	name, addr, email, card := "Verified "+v.run, "2 Verify Road "+v.run, "vf2"+v.run+"@example.com", "4444-3333-2222-1111"
	p, err := u.follow(v.ctx, "/daytrader/app?action=account", []string{"fullname", "address"}, "",
		url.Values{"action": {"update_profile"}, "userID": {u.uid}, "fullname": {name},
			"password": {u.pass}, "cpassword": {u.pass}, "address": {addr}, "email": {email}, "creditcard": {card}}, "/daytrader/app")
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
		if !shows(a.doc(), want) {
			ev := a.evidence("the account page showing "+want, "not shown")
			c.fail(&ev, "the updated profile value %q is not on the account page", want)
			return
		}
	}
}

// shows reports whether the page shows s: in its text or as a field's value (DayTrader's
// account page shows the profile in its form's fields).
func shows(d *doc, s string) bool {
	if d.says(s) {
		return true
	}
	for _, f := range d.forms() {
		for _, x := range f.fields {
			if x.value == s {
				return true
			}
		}
	}
	return false
}

// registerBalance is business.register_balance: it registers the flow's account (f.u, nil when none
// could be) and wants its opening cash, and nothing else, on its pages.
func (v *verifier) registerBalance(c *ck, f *tradeFlow) {
	var ok bool
	if f.u, _, ok = v.register(c, "business"); !ok {
		f.u = nil
		f.missing("no account could be registered: %s", c.Reason)
		return
	}
	s, ok := f.u.snap(c)
	if !ok {
		return
	}
	want, _ := money.Parse(openBalance)
	if s.cash != want || s.open != want {
		ev := s.account.evidence("cash balance and opening balance "+want.String(),
			fmt.Sprintf("cash balance %s, opening balance %s", s.cash, s.open))
		c.fail(&ev, "a new account opened with %s cash (opening balance %s), not the %s registered", s.cash, s.open, want)
	}
	if len(s.holdings) != 0 || len(s.orders) != 0 {
		ev := s.portfolio.evidence("no holdings and no orders", fmt.Sprintf("%d holdings, %d orders", len(s.holdings), len(s.orders)))
		c.fail(&ev, "a new account already has holdings or orders")
	}
}

// checkBuy is business.buy: the cash the buy took and the one holding it made, read from the
// snapshots before and after it.
func (f *tradeFlow) checkBuy(c *ck) {
	if !f.buyDone {
		c.skip("%s", cond(f.why != "", f.why, "no buy completed"))
		return
	}
	o, _ := f.s1.order(f.buy.id)
	if !o.Priced {
		c.unreadable(&f.s1.account, unreadable("price of order %d", o.ID), "the price of the buy order %d on the account page", o.ID)
		return
	}
	want := f.s0.cash - o.Price.Times(o.Quantity) - o.Fee
	if f.s1.cash != want {
		ev := f.s1.account.evidence(fmt.Sprintf("cash %s − %s × %d − fee %s = %s", f.s0.cash, o.Price, o.Quantity, o.Fee, want),
			"cash balance "+f.s1.cash.String())
		c.fail(&ev, "after buying %d %s at %s the cash went from %s to %s, not %s", o.Quantity, o.Symbol, o.Price, f.s0.cash, f.s1.cash, want)
	}
	added := newHoldings(f.s0, f.s1)
	if len(added) != 1 || added[0].Symbol != o.Symbol || added[0].Quantity != o.Quantity || added[0].PurchasePrice != o.Price {
		ev := f.s1.portfolio.evidence(fmt.Sprintf("one new holding: %d %s at %s", o.Quantity, o.Symbol, o.Price),
			fmt.Sprintf("new holdings %+v", added))
		c.fail(&ev, "the buy did not create exactly one holding of %d %s at %s", o.Quantity, o.Symbol, o.Price)
	}
}

// checkSell is business.sell: the cash the sell added and the holding it removed.
func (f *tradeFlow) checkSell(c *ck) {
	if !f.sellDone {
		c.skip("%s", cond(f.why != "", f.why, "no sell completed"))
		return
	}
	o, _ := f.s2.order(f.sell.id)
	if !o.Priced {
		c.unreadable(&f.s2.account, unreadable("price of order %d", o.ID), "the price of the sell order %d on the account page", o.ID)
		return
	}
	want := f.s1.cash + o.Price.Times(o.Quantity) - o.Fee
	if f.s2.cash != want {
		ev := f.s2.account.evidence(fmt.Sprintf("cash %s + %s × %d − fee %s = %s", f.s1.cash, o.Price, o.Quantity, o.Fee, want),
			"cash balance "+f.s2.cash.String())
		c.fail(&ev, "after selling %d %s at %s the cash went from %s to %s, not %s", o.Quantity, o.Symbol, o.Price, f.s1.cash, f.s2.cash, want)
	}
	if h, still := f.s2.holding(o.holdingOf(f)); still {
		ev := f.s2.portfolio.evidence("the sold holding gone", fmt.Sprintf("holding %d: %d %s", h.ID, h.Quantity, h.Symbol))
		c.fail(&ev, "the sold holding %d is still in the portfolio", h.ID)
	}
}

// checkCommission is business.commission: each order's fee, from the account page or else the
// order's own confirmation (a target may list an order only once it completes).
func (f *tradeFlow) checkCommission(c *ck) {
	if !f.buyOK {
		c.skip("%s", cond(f.why != "", f.why, "no order was placed"))
		return
	}
	for _, pl := range []placed{f.buy, f.sell} {
		if pl.id == 0 {
			continue
		}
		o, found := f.last().order(pl.id)
		if !found {
			if os, err := readOrders(pl.page.doc()); err == nil && len(os) > 0 && os[0].ID == pl.id {
				o, found = os[0], true // the confirmation's own table
			}
		}
		if !found {
			continue
		}
		if o.Fee != orderFee {
			ev := pl.page.evidence("fee "+orderFee.String(), "fee "+o.Fee.String())
			c.fail(&ev, "order %d (%s %d %s) was charged %s, not the commission of %s", o.ID, o.Type, o.Quantity, o.Symbol, o.Fee, orderFee)
		}
	}
}

// checkPagesCurrent is business.pages_current: the home page taken at each snapshot against the
// account and portfolio pages of the same moment, so a stale cache shows as a disagreement.
func (f *tradeFlow) checkPagesCurrent(c *ck) {
	if len(f.homes) == 0 {
		c.skip("%s", cond(f.why != "", f.why, "no trade was made"))
		return
	}
	for i, s := range []snapshot{f.s0, f.s1, f.s2} {
		if i >= len(f.homes) || s.account.req == "" || s.portfolio.req == "" {
			continue
		}
		h := &f.homes[i]
		cash, err := h.doc().amount("cash balance")
		if err != nil {
			c.misread(h, err, "the cash balance on the home page")
			return
		}
		n, err := h.doc().count("number of holdings")
		if err != nil {
			c.misread(h, err, "the number of holdings on the home page")
			return
		}
		if cash != s.cash || n != int64(len(s.holdings)) {
			ev := h.evidence(fmt.Sprintf("cash balance %s and %d holdings (the account and portfolio pages)", s.cash, len(s.holdings)),
				fmt.Sprintf("cash balance %s and %d holdings", cash, n))
			c.fail(&ev, "the home page shows cash %s and %d holdings where the account and portfolio pages show %s and %d", cash, n, s.cash,
				len(s.holdings))
			return
		}
	}
}

// checkLogout is business.logout: the cookies kept before logging out, replayed by another
// visitor, must no longer open the account page.
func (v *verifier) checkLogout(c *ck) {
	u, ok := v.shared(c, "logout")
	if !ok {
		return
	}
	old := u.session()
	p, err := u.get(v.ctx, "/daytrader/app?action=logout")
	if err != nil {
		c.transport(p, err)
		return
	}
	replay := v.withSession(old)
	defer replay.close()
	p, err = replay.get(v.ctx, "/daytrader/app?action=account")
	if err != nil {
		c.transport(p, err)
		return
	}
	_, cashErr := p.doc().amount("cash balance")
	if p.status < 500 && (isLoginPage(p.doc()) || p.status >= 400) && cashErr != nil {
		return // refused: the login page (or a 4xx), and no account shown
	}
	ev := p.evidence("the login page (the session has ended)", fmt.Sprintf("status %d", p.status))
	c.fail(&ev, "the session cookie of %s still opened its account page after logout", u.uid)
}
