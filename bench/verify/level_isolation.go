package verify

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Level 3, isolation and input: one of verify's accounts (the victim) holds shares; another
// (the stranger) tries to see, sell and change what is the victim's, then sends bad input.
// Every attempt must be refused — a bad input with a clear 4xx, never a 500 — and change nothing.

// victimAccount is the isolation checks' victim: an account of verify's own holding shares,
// and what it could not establish.
type victimAccount struct {
	u       *user
	held    int64 // its holding (0: none could be made)
	ordered int64 // its order
	why     string
}

// victim registers the victim and buys it a holding, confirmed by whichever page shows it:
// the portfolio's new holding for its id, the account's order or else the confirmation for the
// order's. Failures are the victim's own facts, not any check's: the checks that need a
// holding are skipped naming what is missing.
func (v *verifier) victim() victimAccount {
	var vic victimAccount
	c := &ck{v: v}
	u, _, ok := v.register(c, "victim")
	if !ok {
		vic.why = "no victim account could be registered: " + c.Reason
		return vic
	}
	vic.u = u
	buy := fmt.Sprintf("3 %s", v.cfg.Symbols[2])
	pl, ok := u.buy(c, v.cfg.Symbols[2], 3)
	if !ok {
		vic.why = fmt.Sprintf("the victim's buy of %s was not confirmed: %s", buy, c.Reason)
		return vic
	}
	vic.ordered = pl.id
	var s snapshot
	for deadline := time.Now().Add(v.cfg.OrderBound); ; {
		s = snapshot{}
		if !u.snapPortfolio(c, &s) {
			vic.why = fmt.Sprintf("the victim's portfolio could not be read after a buy of %s: %s", buy, c.Reason)
			return vic
		}
		if len(s.holdings) > 0 || time.Now().After(deadline) {
			break
		}
		select {
		case <-v.ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
	if len(s.holdings) == 0 {
		vic.why = fmt.Sprintf("no holding could be created: the portfolio lists none after a buy of %s (order %d)", buy, pl.id)
		return vic
	}
	vic.held = s.holdings[0].ID
	return vic
}

// intrusion is what the isolation and input checks share: the victim, and the stranger who
// tries what is the victim's (strangerOK false, and noStranger why, when none could be
// registered: the checks needing it are skipped saying so).
type intrusion struct {
	vic        victimAccount
	stranger   *user
	strangerOK bool
	noStranger string
}

// isolation runs level 3 as one table of checks over one intrusion: the victim and the stranger
// are made once, before the checks, so each check's failure is its own and not its setup's.
func (v *verifier) isolation() {
	const L = 3
	in := intrusion{vic: v.victim()}
	c0 := &ck{v: v}
	in.stranger, _, in.strangerOK = v.register(c0, "stranger")
	in.noStranger = "no second account could be registered: " + c0.Reason
	defer func() {
		for _, u := range []*user{in.vic.u, in.stranger} {
			if u != nil {
				u.close()
			}
		}
	}()
	v.check("isolation.see_other", L, "a user cannot see another user's holdings or orders, not even by naming that user in the request",
		func(c *ck) { v.seeOther(c, &in) })
	v.check("isolation.sell_other", L, "a user cannot sell another user's holding by its id", func(c *ck) { v.sellOther(c, &in) })
	v.check("isolation.profile_other", L, "a user cannot change another user's profile (update_profile naming the other user)",
		func(c *ck) { v.profileOther(c, &in) })
	v.check("isolation.cancel_other", L, "a user cannot cancel another user's order", func(c *ck) {
		c.skip("the DayTrader contract has no operation to cancel an order")
	})
	v.badInput(&in, "input.quantity", "a zero, negative, huge or non-numeric quantity gets a clear 4xx, never a 500, and changes nothing",
		"buy", []string{"0", "-5", "1000000000000", "99999999999999999999", "abc", "1.5", "", "1e3"}, func(q string) url.Values {
			return url.Values{"action": {"buy"}, "symbol": {v.cfg.Symbols[0]}, "quantity": {q}}
		})
	v.badInput(&in, "input.symbol", "an unknown, overlong or marked-up symbol gets a clear 4xx, never a 500, and changes nothing",
		"buy", []string{"nosuch:vf" + v.run, strings.Repeat("s", 300), "<script>alert(1)</script>", ""}, func(s string) url.Values {
			return url.Values{"action": {"buy"}, "symbol": {s}, "quantity": {"1"}}
		})
	v.badInput(&in, "input.holding_id",
		"a bad holding id (not a number, negative, zero, huge, unknown) gets a clear 4xx, never a 500, and changes nothing",
		"sell", []string{"abc", "-1", "0", "99999999999999999999", "", "9000000000000000000"}, func(h string) url.Values {
			return url.Values{"action": {"sell"}, "holdingID": {h}}
		})
	v.check("input.fields", L, "overlong fields and markup in a registration or profile get a clear 4xx, never a 500, change nothing, "+
		"and are never echoed unescaped", func(c *ck) { v.inputFields(c, &in) })
}

// badInput is a level 3 input check: the stranger sends each of values in the form built by
// form (badInputs judges the answers), skipped when there is no stranger.
func (v *verifier) badInput(in *intrusion, id, rule, what string, values []string, form func(string) url.Values) {
	v.check(id, 3, rule, func(c *ck) {
		if !in.strangerOK {
			c.skip("%s", in.noStranger)
			return
		}
		v.badInputs(c, in.stranger, what, values, form)
	})
}

// badInputs sends each bad value as u (a form built by form) and wants each refused with a 4xx
// and not confirmed as an order, the markup of a value never echoed unescaped, and u's
// account unchanged after them all. The answers are judged whether or not u's pages can be
// read: a 500 is a failure however the account looks.
func (v *verifier) badInputs(c *ck, u *user, what string, values []string, form func(string) url.Values) {
	before, readBefore := u.snapQuiet()
	for _, val := range values {
		p, err := u.post(v.ctx, "/daytrader/app", form(val))
		if err != nil {
			c.transport(p, err)
			continue
		}
		marked := strings.Contains(val, "<") && echoed(p.body, val)
		if p.status < 400 || p.status >= 500 || submitted(p.doc()) || marked {
			got := fmt.Sprintf("status %d", p.status)
			if submitted(p.doc()) {
				got += ", an order submitted"
			}
			if marked {
				got += ", the markup echoed unescaped"
			}
			ev := p.evidence("a clear 4xx", got)
			c.fail(&ev, "%s with %s was not refused with a 4xx (%s)", what, describeValue(val), got)
		}
	}
	v.unchanged(c, u, before, readBefore, what+" with bad input")
}

// echoed reports whether markup a request sent comes back as markup: the raw string in the
// answer (the page's own markup is not the tree's business here: the point is that the bytes
// came back unescaped).
func echoed(body, markup string) bool { return strings.Contains(body, markup) }

// snapQuiet reads u's account for a later comparison; ok is false (nothing recorded) when it
// cannot be read — the comparison is then marked unreadable, and the rest of the check runs.
func (u *user) snapQuiet() (snapshot, error) {
	c := &ck{v: u.v}
	s, ok := u.snap(c)
	if !ok {
		return s, errors.New(c.Reason)
	}
	return s, nil
}

// unchanged checks that u's cash, holdings and orders are what before showed; when either
// reading could not be made, the comparison is unreadable (what the requests answered has been
// judged already).
func (v *verifier) unchanged(c *ck, u *user, before snapshot, readBefore error, after string) {
	if readBefore != nil {
		c.unreadable(&before.account, readBefore, "%s's account before %s, to see that nothing changed", u.uid, after)
		return
	}
	s, ok := u.snap(c)
	if !ok {
		return
	}
	ids := func(s snapshot) string {
		var b strings.Builder
		for _, h := range s.holdings {
			fmt.Fprintf(&b, "h%d:%d ", h.ID, h.Quantity)
		}
		for _, o := range s.orders {
			fmt.Fprintf(&b, "o%d ", o.ID)
		}
		return b.String()
	}
	if s.cash != before.cash || ids(s) != ids(before) {
		ev := s.account.evidence(fmt.Sprintf("cash %s, holdings and orders [%s] unchanged", before.cash, ids(before)),
			fmt.Sprintf("cash %s, [%s]", s.cash, ids(s)))
		c.fail(&ev, "%s changed %s's account", after, u.uid)
	}
}

// sellLinkTo reports whether the page links to selling holding id.
func sellLinkTo(d *doc, id int64) bool {
	for _, l := range links(d.root) {
		q := queryOf(l)
		if q.Get("action") == "sell" && q.Get("holdingID") == strconv.FormatInt(id, 10) {
			return true
		}
	}
	return false
}

// describeValue is a bad value as a failure names it: quoted, cut short.
func describeValue(s string) string {
	if len(s) > 30 {
		return fmt.Sprintf("%q…(%d chars)", s[:30], len(s))
	}
	return fmt.Sprintf("%q", s)
}

func cond(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}

// seeOther is isolation.see_other: the stranger asks for its own pages and for the victim's by
// name, and none may show the victim's holding or order (a 500 counts too: a refusal is a 4xx).
func (v *verifier) seeOther(c *ck, in *intrusion) {
	vic, stranger, held, ordered := in.vic, in.stranger, in.vic.held, in.vic.ordered
	switch {
	case !in.strangerOK:
		c.skip("%s", in.noStranger)
		return
	case vic.u == nil || ordered == 0:
		c.skip("%s", vic.why)
		return
	}
	victim := vic.u
	for _, path := range []string{"/daytrader/app?action=portfolio", "/daytrader/app?action=account",
		"/daytrader/app?action=portfolio&uid=" + url.QueryEscape(victim.uid) + "&userID=" + url.QueryEscape(victim.uid),
		"/daytrader/app?action=account&uid=" + url.QueryEscape(victim.uid) + "&userID=" + url.QueryEscape(victim.uid)} {
		p, err := stranger.get(v.ctx, path)
		if err != nil {
			c.transport(p, err)
			return
		}
		d := p.doc()
		hs, _ := readHoldings(d)
		os, _ := readOrders(d)
		leaked := held != 0 && (slices.ContainsFunc(hs, func(h holding) bool { return h.ID == held }) || sellLinkTo(d, held))
		if p.status >= 500 || leaked || slices.ContainsFunc(os, func(o order) bool { return o.ID == ordered }) {
			ev := p.evidence(fmt.Sprintf("%s's own page, without holding %d or order %d of %s", stranger.uid, held, ordered, victim.uid),
				fmt.Sprintf("status %d", p.status))
			c.fail(&ev, "%s was shown %s's holdings or orders", stranger.uid, victim.uid)
			return
		}
	}
}

// sellOther is isolation.sell_other: the stranger sells the victim's holding by its id; the
// attempt must be refused, the holding still the victim's and the stranger's account unchanged.
func (v *verifier) sellOther(c *ck, in *intrusion) {
	vic, stranger, held := in.vic, in.stranger, in.vic.held
	switch {
	case !in.strangerOK:
		c.skip("%s", in.noStranger)
		return
	case held == 0:
		c.skip("%s", vic.why)
		return
	}
	victim := vic.u
	before, readBefore := stranger.snapQuiet()
	p, err := stranger.get(v.ctx, fmt.Sprintf("/daytrader/app?action=sell&holdingID=%d", held))
	if err != nil {
		c.transport(p, err)
		return
	}
	if p.status >= 500 || submitted(p.doc()) {
		ev := p.evidence(fmt.Sprintf("a refusal (4xx): holding %d is %s's", held, victim.uid),
			fmt.Sprintf("status %d%s", p.status, cond(submitted(p.doc()), ", an order submitted", "")))
		c.fail(&ev, "%s's attempt to sell %s's holding %d was not refused", stranger.uid, victim.uid, held)
	}
	var s snapshot
	if victim.snapPortfolio(c, &s) {
		if _, still := s.holding(held); !still {
			ev := s.portfolio.evidence(fmt.Sprintf("holding %d still %s's", held, victim.uid), "gone")
			c.fail(&ev, "%s's holding %d is gone after %s tried to sell it", victim.uid, held, stranger.uid)
		}
	}
	v.unchanged(c, stranger, before, readBefore, "selling another user's holding")
}

// profileOther is isolation.profile_other: the stranger updates a profile naming the victim, and
// the victim's account page must not show the name it sent.
func (v *verifier) profileOther(c *ck, in *intrusion) {
	vic, stranger := in.vic, in.stranger
	switch {
	case !in.strangerOK:
		c.skip("%s", in.noStranger)
		return
	case vic.u == nil:
		c.skip("%s", vic.why)
		return
	}
	victim := vic.u
	evil := "Hijacked " + v.run
	p, err := stranger.post(v.ctx, "/daytrader/app", url.Values{"action": {"update_profile"}, "userID": {victim.uid},
		"fullname": {evil}, "password": {stranger.pass}, "cpassword": {stranger.pass}, "address": {"x"}, "email": {"x@example.com"},
		"creditcard": {"x"}})
	if err != nil {
		c.transport(p, err)
		return
	}
	if p.status >= 500 {
		ev := p.evidence("a refusal (4xx) or the stranger's own profile changed", fmt.Sprintf("status %d", p.status))
		c.fail(&ev, "updating another user's profile answered %d", p.status)
	}
	a, err := victim.get(v.ctx, "/daytrader/app?action=account")
	if err != nil {
		c.transport(a, err)
		return
	}
	if shows(a.doc(), evil) {
		ev := a.evidence(victim.uid+"'s profile unchanged", "full name "+evil)
		c.fail(&ev, "%s changed %s's profile", stranger.uid, victim.uid)
	}
}

// inputFields is input.fields: overlong and marked-up profile fields and registrations, each
// refused with a 4xx and never echoed unescaped; a refused registration must leave no account
// to log in to.
func (v *verifier) inputFields(c *ck, in *intrusion) {
	stranger := in.stranger
	if !in.strangerOK {
		c.skip("%s", in.noStranger)
		return
	}
	mark := "<script>alert('vf" + v.run + "')</script>"
	long := strings.Repeat("x", 5000)
	v.badInputs(c, stranger, "update_profile", []string{long, mark}, func(s string) url.Values {
		return url.Values{"action": {"update_profile"}, "userID": {stranger.uid}, "fullname": {s}, "password": {stranger.pass},
			"cpassword": {stranger.pass}, "address": {"1 Verify " +
				"Way"}, "email": {"vf" + v.run + "@example.com"}, "creditcard": {"0000-1111-2222-3333"}}
	})
	// registrations: a visitor, not logged in; the refused account must not exist after
	for _, f := range []url.Values{
		registerForm(strings.Repeat("u", 300), "vf-"+v.run, "Verify fields", "vf"+v.run+"@example.com"),
		registerForm("vf-"+v.run+"-mark", "vf-"+v.run, mark, "vf"+v.run+"@example.com"),
	} {
		w := v.newUser()
		p, err := w.post(v.ctx, "/daytrader/app", f)
		w.close()
		if err != nil {
			c.transport(p, err)
			return
		}
		if p.status < 400 || p.status >= 500 || echoed(p.body, mark) {
			ev := p.evidence("a clear 4xx, the markup not echoed",
				fmt.Sprintf("status %d%s", p.status, cond(echoed(p.body, mark), ", the markup echoed unescaped", "")))
			c.fail(&ev, "a registration with %s was not refused with a 4xx", describeValue(f.Get("user id")+" / "+f.Get("Full Name")))
		}
		l := v.newUser()
		lp, err := l.post(v.ctx, "/daytrader/app", url.Values{"action": {"login"}, "uid": {f.Get("user id")}, "passwd": {"vf-" + v.run}})
		l.close()
		if err == nil && lp.doc().greets(f.Get("user id")) {
			ev := lp.evidence("no such account (its registration was refused)", "logged in")
			c.fail(&ev, "the refused registration created an account")
		}
	}
}
