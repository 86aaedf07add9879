package verify

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Level 4, the audit through the contract: a short load — accounts of verify's own trading at
// once — and then every account reconciled from what its pages say, as trade/audit reconciles
// a database after a run, without the database: money conserved, every order accounted for once.

// trader is one account of the audit's load and what it did.
type trader struct {
	u      *user
	placed []int64 // the orders it placed, in order
	kinds  map[int64]string
	sold   map[int64]bool // holdings it sold
	errs   []string
	final  snapshot
	open   []int64
	ok     bool
}

// auditRun is the audit's load and what stopped it: the checks after audit.load reconcile its
// traders, or are skipped saying why ("" once every account was read after its trades).
type auditRun struct {
	ts  []*trader
	why string
}

// audit runs level 4: the load first, then each reconciliation over what it left.
func (v *verifier) audit() {
	const L = 4
	a := &auditRun{why: "the audit's load did not run"}
	defer func() {
		for _, t := range a.ts {
			if t.u != nil {
				t.u.close()
			}
		}
	}()
	v.check("audit.load", L,
		fmt.Sprintf("a short load: %d accounts of verify's own buy and sell at once, %d orders each, every order confirmed",
			v.cfg.AuditUsers, v.cfg.AuditTrades), func(c *ck) { v.auditLoad(c, a) })
	v.check("audit.orders_once", L,
		"every order placed is on its account's page exactly once, completed, as placed; no order that was not placed", a.ordersOnce)
	v.check("audit.money_conserved", L,
		"each account's cash is its opening balance less its buys (price × quantity + fee) plus its sells (price × quantity − fee), and "+
			"its holdings are what its orders bought and did not sell", a.moneyConserved)
}

// load is one trader's share of the audit's load: buys and sells of its own holdings in turn,
// each order confirmed (its id kept) or the failure noted.
func (v *verifier) load(t *trader, i int) {
	var c ck // failures of this goroutine's requests, gathered into t.errs
	for k := range v.cfg.AuditTrades {
		if v.ctx.Err() != nil {
			return
		}
		var pl placed
		var ok bool
		kind := "buy"
		if k%2 == 1 {
			p, err := t.u.get(v.ctx, "/daytrader/app?action=portfolio")
			hs, herr := readHoldings(p.doc())
			resolveSells(&p, hs)
			// a holding not sold yet (an async sell takes a while to remove it)
			hs = slices.DeleteFunc(hs, func(h holding) bool { return t.sold[h.ID] })
			if err == nil && herr == nil && len(hs) > 0 {
				kind = "sell"
				h := hs[(i+k)%len(hs)]
				t.sold[h.ID] = true
				pl, ok = t.u.sell(&c, h)
			}
		}
		if kind == "buy" {
			pl, ok = t.u.buy(&c, v.cfg.Symbols[(i+k)%len(v.cfg.Symbols)], int64(1+(i*7+k*3)%20))
		}
		if !ok {
			t.errs = append(t.errs, fmt.Sprintf("%s %d: %s", kind, k+1, c.Reason))
			c = ck{}
			continue
		}
		t.placed = append(t.placed, pl.id)
		t.kinds[pl.id] = kind
	}
}

// auditLoad is audit.load: it registers the traders, runs their load at once, and waits until
// every order is final (or the bound passed), so that the reconciliations after it read settled
// accounts; a.why says what stopped it.
func (v *verifier) auditLoad(c *ck, a *auditRun) {
	for i := range v.cfg.AuditUsers {
		t := &trader{kinds: map[int64]string{}, sold: map[int64]bool{}}
		a.ts = append(a.ts, t)
		var ok bool
		if t.u, _, ok = v.register(c, fmt.Sprintf("audit %d", i)); !ok {
			t.u.close()
			t.u = nil
			a.why = "no account could be registered for the audit: " + c.Reason
			return
		}
	}
	var wg sync.WaitGroup
	for i, t := range a.ts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v.load(t, i)
		}()
	}
	wg.Wait()
	for _, t := range a.ts {
		for _, e := range t.errs {
			c.fail(nil, "%s: %s", t.u.uid, e)
		}
	}
	// every account's orders final (or the bound passed) before anything is reconciled
	for _, t := range a.ts {
		var ok bool
		if t.final, t.open, ok = t.u.waitFinal(c, t.placed); !ok {
			a.why = fmt.Sprintf("the account of %s could not be read after its trades: %s", t.u.uid, c.Reason)
			return
		}
		t.ok = true
	}
	a.why = ""
}

// ordersOnce is audit.orders_once: each trader's account page lists every order it placed once,
// completed and of the kind placed, and no other.
func (a *auditRun) ordersOnce(c *ck) {
	if a.why != "" {
		c.skip("%s", a.why)
		return
	}
	for _, t := range a.ts {
		seen := map[int64]int{}
		for _, o := range t.final.orders {
			seen[o.ID]++
		}
		var bad []string
		for _, id := range t.placed {
			switch n := seen[id]; {
			case n == 0:
				bad = append(bad, fmt.Sprintf("order %d missing", id))
			case n > 1:
				bad = append(bad, fmt.Sprintf("order %d listed %d times", id, n))
			}
			if o, ok := t.final.order(id); ok && (!o.done() || o.Type != t.kinds[id]) {
				bad = append(bad, fmt.Sprintf("order %d is %s %s, placed as a %s", id, o.Status, o.Type, t.kinds[id]))
			}
		}
		for id := range seen {
			if _, ok := t.kinds[id]; !ok {
				bad = append(bad, fmt.Sprintf("order %d was never placed", id))
			}
		}
		if len(bad) > 0 {
			sort.Strings(bad)
			ev := t.final.account.evidence(fmt.Sprintf("the %d orders placed, each once, completed", len(t.placed)), strings.Join(bad, "; "))
			c.fail(&ev, "%s's orders do not reconcile: %s", t.u.uid, strings.Join(bad, "; "))
		}
	}
}

// moneyConserved is audit.money_conserved: each account's cash and holdings recomputed from its
// opening balance and its completed orders, as trade/audit reconciles a database.
func (a *auditRun) moneyConserved(c *ck) {
	if a.why != "" {
		c.skip("%s", a.why)
		return
	}
	for _, t := range a.ts {
		cash := t.final.open
		shares := map[string]int64{}
		for _, o := range t.final.orders {
			if !o.done() {
				continue
			}
			switch o.Type {
			case "buy":
				cash -= o.Price.Times(o.Quantity) + o.Fee
				shares[o.Symbol] += o.Quantity
			case "sell":
				cash += o.Price.Times(o.Quantity) - o.Fee
				shares[o.Symbol] -= o.Quantity
			}
		}
		if cash != t.final.cash {
			ev := t.final.account.evidence("cash "+cash.String()+" (opening balance and the orders listed)", "cash "+t.final.cash.String())
			c.fail(&ev, "%s's cash is %s; its orders leave %s (%s unaccounted for)", t.u.uid, t.final.cash, cash, t.final.cash-cash)
		}
		held := map[string]int64{}
		for _, h := range t.final.holdings {
			held[h.Symbol] += h.Quantity
		}
		for sym, n := range shares {
			if n == 0 {
				delete(shares, sym)
			}
		}
		if fmt.Sprint(held) != fmt.Sprint(shares) {
			ev := t.final.portfolio.evidence(fmt.Sprintf("holdings %v (bought less sold)", shares), fmt.Sprintf("holdings %v", held))
			c.fail(&ev, "%s holds %v; its orders leave %v", t.u.uid, held, shares)
		}
	}
}
