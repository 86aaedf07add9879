package verify

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// Level 3, isolation and input: one of verify's accounts (the victim) holds shares; another
// (the stranger) tries to see, sell and change what is the victim's, then sends bad input.
// Every attempt must be refused — a bad input with a clear 4xx, never a 500 — and change nothing.

func (v *verifier) isolation() {
	const L = 3
	var victim, stranger *user
	var held int64    // the victim's holding
	var ordered int64 // the victim's order
	defer func() {
		for _, u := range []*user{victim, stranger} {
			if u != nil {
				u.close()
			}
		}
	}()
	ready := "isolation.accounts"
	v.check(ready, L, "two accounts of verify's own, one holding shares, for the checks below", []string{"business.orders_complete"}, func(c *ck) {
		var ok bool
		if victim, _, ok = v.register(c, "victim"); !ok {
			return
		}
		pl, ok := victim.buy(c, v.cfg.Symbols[2], 3)
		if !ok {
			return
		}
		s, open, ok := victim.waitFinal(c, []int64{pl.id})
		if !ok {
			return
		}
		if len(open) > 0 || len(s.holdings) != 1 {
			ev := s.portfolio.evidence("one holding after a completed buy", fmt.Sprintf("%d holdings, orders not final %v", len(s.holdings), open))
			c.fail(&ev, "the victim's buy did not complete into a holding")
			return
		}
		held, ordered = s.holdings[0].ID, pl.id
		stranger, _, _ = v.register(c, "stranger")
	})
	deps := []string{ready}
	v.check("isolation.see_other", L, "a user cannot see another user's holdings or orders, not even by naming that user in the request", deps, func(c *ck) {
		for _, path := range []string{"/daytrader/app?action=portfolio", "/daytrader/app?action=account",
			"/daytrader/app?action=portfolio&uid=" + url.QueryEscape(victim.uid) + "&userID=" + url.QueryEscape(victim.uid),
			"/daytrader/app?action=account&uid=" + url.QueryEscape(victim.uid) + "&userID=" + url.QueryEscape(victim.uid)} {
			p, err := stranger.get(v.ctx, path)
			if err != nil {
				c.transport(p, err)
				return
			}
			hs, _ := readHoldings(p.body)
			os, _ := readOrders(p.body)
			if p.status >= 500 || slices.ContainsFunc(hs, func(h holding) bool { return h.ID == held }) ||
				slices.ContainsFunc(os, func(o order) bool { return o.ID == ordered }) ||
				strings.Contains(p.body, fmt.Sprintf("holdingID=%d\"", held)) {
				ev := p.evidence(fmt.Sprintf("%s's own page, without holding %d or order %d of %s", stranger.uid, held, ordered, victim.uid), fmt.Sprintf("status %d", p.status))
				c.fail(&ev, "%s was shown %s's holdings or orders", stranger.uid, victim.uid)
				return
			}
		}
	})
	v.check("isolation.sell_other", L, "a user cannot sell another user's holding by its id", deps, func(c *ck) {
		before, ok := stranger.snap(c)
		if !ok {
			return
		}
		p, err := stranger.get(v.ctx, fmt.Sprintf("/daytrader/app?action=sell&holdingID=%d", held))
		if err != nil {
			c.transport(p, err)
			return
		}
		if p.status >= 500 || submitted(p.body) {
			ev := p.evidence(fmt.Sprintf("a refusal (4xx): holding %d is %s's", held, victim.uid), fmt.Sprintf("status %d%s", p.status, cond(submitted(p.body), ", an order submitted", "")))
			c.fail(&ev, "%s's attempt to sell %s's holding %d was not refused", stranger.uid, victim.uid, held)
		}
		s, ok := victim.snap(c)
		if !ok {
			return
		}
		if _, still := s.holding(held); !still {
			ev := s.portfolio.evidence(fmt.Sprintf("holding %d still %s's", held, victim.uid), "gone")
			c.fail(&ev, "%s's holding %d is gone after %s tried to sell it", victim.uid, held, stranger.uid)
		}
		v.unchanged(c, stranger, before, "selling another user's holding")
	})
	v.check("isolation.profile_other", L, "a user cannot change another user's profile (update_profile naming the other user)", deps, func(c *ck) {
		evil := "Hijacked " + v.run
		p, err := stranger.post(v.ctx, "/daytrader/app", url.Values{"action": {"update_profile"}, "userID": {victim.uid},
			"fullname": {evil}, "password": {stranger.pass}, "cpassword": {stranger.pass}, "address": {"x"}, "email": {"x@example.com"}, "creditcard": {"x"}})
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
		if strings.Contains(a.body, evil) {
			ev := a.evidence(victim.uid+"'s profile unchanged", "full name "+evil)
			c.fail(&ev, "%s changed %s's profile", stranger.uid, victim.uid)
		}
	})
	v.check("isolation.cancel_other", L, "a user cannot cancel another user's order", deps, func(c *ck) {
		c.skip("the DayTrader contract has no operation to cancel an order")
	})
	v.check("input.quantity", L, "a zero, negative, huge or non-numeric quantity gets a clear 4xx, never a 500, and changes nothing", deps, func(c *ck) {
		v.badInputs(c, stranger, "buy", []string{"0", "-5", "1000000000000", "99999999999999999999", "abc", "1.5", "", "1e3"}, func(q string) url.Values {
			return url.Values{"action": {"buy"}, "symbol": {v.cfg.Symbols[0]}, "quantity": {q}}
		})
	})
	v.check("input.symbol", L, "an unknown, overlong or marked-up symbol gets a clear 4xx, never a 500, and changes nothing", deps, func(c *ck) {
		v.badInputs(c, stranger, "buy", []string{"nosuch:vf" + v.run, strings.Repeat("s", 300), "<script>alert(1)</script>", ""}, func(s string) url.Values {
			return url.Values{"action": {"buy"}, "symbol": {s}, "quantity": {"1"}}
		})
	})
	v.check("input.holding_id", L, "a bad holding id (not a number, negative, zero, huge, unknown) gets a clear 4xx, never a 500, and changes nothing", deps, func(c *ck) {
		v.badInputs(c, stranger, "sell", []string{"abc", "-1", "0", "99999999999999999999", "", "9000000000000000000"}, func(h string) url.Values {
			return url.Values{"action": {"sell"}, "holdingID": {h}}
		})
	})
	v.check("input.fields", L, "overlong fields and markup in a registration or profile get a clear 4xx, never a 500, change nothing, and are never echoed unescaped", deps, func(c *ck) {
		mark := "<script>alert('vf" + v.run + "')</script>"
		long := strings.Repeat("x", 5000)
		v.badInputs(c, stranger, "update_profile", []string{long, mark}, func(s string) url.Values {
			return url.Values{"action": {"update_profile"}, "userID": {stranger.uid}, "fullname": {s}, "password": {stranger.pass},
				"cpassword": {stranger.pass}, "address": {"1 Verify Way"}, "email": {"vf" + v.run + "@example.com"}, "creditcard": {"0000-1111-2222-3333"}}
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
			if p.status < 400 || p.status >= 500 || strings.Contains(p.body, mark) {
				ev := p.evidence("a clear 4xx, the markup not echoed", fmt.Sprintf("status %d%s", p.status, cond(strings.Contains(p.body, mark), ", the markup echoed unescaped", "")))
				c.fail(&ev, "a registration with %s was not refused with a 4xx", describeValue(f.Get("user id")+" / "+f.Get("Full Name")))
			}
			l := v.newUser()
			lp, err := l.post(v.ctx, "/daytrader/app", url.Values{"action": {"login"}, "uid": {f.Get("user id")}, "passwd": {"vf-" + v.run}})
			l.close()
			if err == nil && welcomes(lp.body, f.Get("user id")) {
				ev := lp.evidence("no such account (its registration was refused)", "logged in")
				c.fail(&ev, "the refused registration created an account")
			}
		}
	})
}

// badInputs sends each bad value as u (a form built by form) and wants each refused with a 4xx
// and not confirmed as an order, the markup of a value never echoed unescaped, and u's
// account unchanged after them all.
func (v *verifier) badInputs(c *ck, u *user, what string, values []string, form func(string) url.Values) {
	before, ok := u.snap(c)
	if !ok {
		return
	}
	for _, val := range values {
		p, err := u.post(v.ctx, "/daytrader/app", form(val))
		if err != nil {
			c.transport(p, err)
			continue
		}
		marked := strings.Contains(val, "<") && strings.Contains(p.body, val)
		if p.status < 400 || p.status >= 500 || submitted(p.body) || marked {
			got := fmt.Sprintf("status %d", p.status)
			if submitted(p.body) {
				got += ", an order submitted"
			}
			if marked {
				got += ", the markup echoed unescaped"
			}
			ev := p.evidence("a clear 4xx", got)
			c.fail(&ev, "%s with %s was not refused with a 4xx (%s)", what, describeValue(val), got)
		}
	}
	v.unchanged(c, u, before, what+" with bad input")
}

// unchanged checks that u's cash, holdings and orders are what before showed.
func (v *verifier) unchanged(c *ck, u *user, before snapshot, after string) {
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
		ev := s.account.evidence(fmt.Sprintf("cash %s, holdings and orders [%s] unchanged", before.cash, ids(before)), fmt.Sprintf("cash %s, [%s]", s.cash, ids(s)))
		c.fail(&ev, "%s changed %s's account", after, u.uid)
	}
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
