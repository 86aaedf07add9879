package verifyservices

import (
	"errors"
	"fmt"

	"github.com/tradebench/tradebench/trade"
)

// Level 1, business rules over the services contract: one account of verify's own registers,
// buys and sells, and every call's answer is checked against the others and the rules.

// The business checks share what they saw: the orders and the states around them.
type trades struct {
	buy, sell           trade.Order
	before, afterBuy    state
	afterSell           state
	buyOK, sellOK       bool
	buyPlaced, sellSent bool
	// held is GetHolding of the bought holding, read before the sell removes it
	held    trade.Holding
	heldErr error
}

const buyQty = 10

// business runs level 1 as a table of checks over one account's trades: each check after
// business.orders_complete reads what it placed (t), and is skipped when it failed.
func (v *verifier) business() {
	const L = 1
	var t trades
	placed := []string{"business.orders_complete"}
	v.check("business.register_balance", L, "Register opens an account whose balance and opening balance are the amount registered "+
		"(100000.00), with no holdings or orders; GetAccountData says the same", nil, func(c *ck) { v.registerBalance(c, &t) })
	v.check("business.orders_complete", L, "a buy and a sell become final (closed or completed): at once when the host's orders are "+
		"synchronous, else within the order bound", []string{"business.register_balance"}, func(c *ck) { v.placeTrades(c, &t) })
	v.check("business.buy", L, "a buy takes price × quantity + fee from the cash and creates one holding of that quantity at that price",
		placed, func(c *ck) { v.checkBuy(c, &t) })
	v.check("business.sell", L, "a sell adds price × quantity − fee to the cash and removes the holding",
		placed, func(c *ck) { v.checkSell(c, &t) })
	v.check("business.commission", L, "every order's fee is 24.95", placed, func(c *ck) {
		for _, o := range []trade.Order{t.buy, t.sell} {
			if o.Fee != commission {
				c.fail(fmt.Sprintf("%s order %d", o.Type, o.OrderID), "fee "+commission.String(), "fee "+o.Fee.String(),
					"the %s's fee is %s, not %s", o.Type, o.Fee, commission)
			}
		}
	})
	v.check("business.account_holdings", L, "GetAccountData, GetHoldings and GetOrders agree: the cash is the opening balance less the "+
		"buys plus the sells, fees included; each order listed once", placed, func(c *ck) { v.accountHoldings(c, &t) })
}

// registerBalance is business.register_balance: verify's account (v.a) registered, and its
// first state, read by every call, as registered; t.before is what the buy is judged from.
func (v *verifier) registerBalance(c *ck, t *trades) {
	var ok bool
	if v.a, ok = v.register(c); !ok {
		return
	}
	s, ok := v.read(c, v.a)
	if !ok {
		return
	}
	t.before = s
	if s.account.Balance != openBalance || s.account.OpenBalance != openBalance || len(s.holdings) != 0 || len(s.orders) != 0 {
		c.fail("GetAccountData/GetHoldings/GetOrders("+v.a+")",
			fmt.Sprintf("balance %s, opening balance %s, no holdings, no orders", openBalance, openBalance),
			fmt.Sprintf("balance %s, opening balance %s, %d holdings, %d orders", s.account.Balance, s.account.OpenBalance,
				len(s.holdings), len(s.orders)),
			"a new account is not as registered")
	}
}

// accountHoldings is business.account_holdings: the account read again after both trades
// reconciles with the two orders, fees included.
func (v *verifier) accountHoldings(c *ck, t *trades) {
	s, ok := v.read(c, v.a)
	if !ok {
		return
	}
	want := openBalance - t.buy.Total() + t.sell.Total()
	if s.account.Balance != want || s.account.OpenBalance != openBalance {
		c.fail("GetAccountData("+v.a+")",
			fmt.Sprintf("balance %s (opening %s − buy %s + sell %s)", want, openBalance, t.buy.Total(), t.sell.Total()),
			fmt.Sprintf("balance %s, opening %s", s.account.Balance, s.account.OpenBalance), "the cash does not reconcile with the orders")
	}
	if len(s.orders) != 2 || len(s.holdings) != 0 {
		c.fail("GetOrders/GetHoldings("+v.a+")", "the two orders placed, no holdings",
			fmt.Sprintf("%d orders, %d holdings", len(s.orders), len(s.holdings)),
			"the orders and holdings do not reconcile")
	}
}

// placeTrades is business.orders_complete: a buy, then a sell of the holding it made, each
// waited on until final; t keeps what the checks after it read (GetHolding before the sell
// removes the holding).
func (v *verifier) placeTrades(c *ck, t *trades) {
	sym := v.cfg.Symbols[0]
	req := fmt.Sprintf("Buy(%s, %s, %d)", v.a, sym, buyQty)
	o, err := v.svc.Buy(v.ctx, v.a, sym, buyQty)
	if err != nil {
		c.callFailed(req, err)
		return
	}
	t.buyPlaced = true
	if t.buy, t.afterBuy, t.buyOK = v.final(c, v.a, o, req); !t.buyOK {
		return
	}
	if t.buy.Status == trade.StatusCancelled {
		c.fail(req, "a completed buy", "cancelled", "the buy was cancelled")
		t.buyOK = false
		return
	}
	if t.buy.HoldingID == 0 {
		c.fail(req, "the completed buy names the holding it created", fmt.Sprintf("order %+v", t.buy), "the completed buy names no holding")
		t.buyOK = false
		return
	}
	t.held, t.heldErr = v.svc.GetHolding(v.ctx, v.a, t.buy.HoldingID)
	req = fmt.Sprintf("Sell(%s, holding %d, all)", v.a, t.buy.HoldingID)
	o, err = v.svc.Sell(v.ctx, v.a, t.buy.HoldingID, 0)
	if err != nil {
		c.callFailed(req, err)
		return
	}
	t.sellSent = true
	if t.sell, t.afterSell, t.sellOK = v.final(c, v.a, o, req); t.sellOK && t.sell.Status == trade.StatusCancelled {
		c.fail(req, "a completed sell", "cancelled", "the sell was cancelled")
		t.sellOK = false
	}
}

// checkBuy is business.buy: the order as placed, the cash it took, and its one holding as
// GetHoldings and GetHolding both show it.
func (v *verifier) checkBuy(c *ck, t *trades) {
	sym := v.cfg.Symbols[0]
	o, before, after := t.buy, t.before.account.Balance, t.afterBuy.account.Balance
	req := fmt.Sprintf("Buy(%s, %s, %d) = order %d", v.a, sym, buyQty, o.OrderID)
	want := before - o.Price.Times(buyQty) - o.Fee
	if o.Type != trade.Buy || o.Quantity != buyQty || o.Symbol != sym {
		c.fail(req, fmt.Sprintf("a buy of %d %s", buyQty, sym), fmt.Sprintf("%s of %d %s", o.Type, o.Quantity, o.Symbol),
			"the order is not the buy placed")
	}
	if after != want {
		c.fail(req, fmt.Sprintf("balance %s − %s × %d − %s = %s", before, o.Price, buyQty, o.Fee, want), "balance "+after.String(),
			"the buy took %s from the cash, not price × quantity + fee (%s)", before-after, before-want)
	}
	h, found := t.afterBuy.holding(o.HoldingID)
	if !found || len(t.afterBuy.holdings) != 1 || h.Symbol != sym || h.Quantity != buyQty || h.PurchasePrice != o.Price {
		c.fail("GetHoldings("+v.a+")", fmt.Sprintf("one holding %d: %d %s at %s", o.HoldingID, buyQty, sym, o.Price),
			fmt.Sprintf("%+v", t.afterBuy.holdings), "the buy did not create its holding")
	}
	if g, err := t.held, t.heldErr; err != nil {
		c.callFailed(fmt.Sprintf("GetHolding(%s, %d)", v.a, o.HoldingID), err)
	} else if g.Quantity != buyQty || g.Symbol != sym {
		c.fail(fmt.Sprintf("GetHolding(%s, %d)", v.a, o.HoldingID), fmt.Sprintf("%d %s", buyQty, sym), fmt.Sprintf("%+v", g),
			"GetHolding disagrees with GetHoldings")
	}
}

// checkSell is business.sell: the order as placed, the cash it added, and the holding gone from
// GetHoldings and GetHolding alike.
func (v *verifier) checkSell(c *ck, t *trades) {
	o, before, after := t.sell, t.afterBuy.account.Balance, t.afterSell.account.Balance
	req := fmt.Sprintf("Sell(%s, holding %d, all) = order %d", v.a, t.buy.HoldingID, o.OrderID)
	want := before + o.Price.Times(buyQty) - o.Fee
	if o.Type != trade.Sell || o.Quantity != buyQty {
		c.fail(req, fmt.Sprintf("a sell of %d", buyQty), fmt.Sprintf("%s of %d", o.Type, o.Quantity), "the order is not the sell placed")
	}
	if after != want {
		c.fail(req, fmt.Sprintf("balance %s + %s × %d − %s = %s", before, o.Price, buyQty, o.Fee, want), "balance "+after.String(),
			"the sell added %s to the cash, not price × quantity − fee (%s)", after-before, want-before)
	}
	if len(t.afterSell.holdings) != 0 {
		c.fail("GetHoldings("+v.a+")", "no holdings", fmt.Sprintf("%+v", t.afterSell.holdings), "the sell did not remove the holding")
	}
	if _, err := v.svc.GetHolding(v.ctx, v.a, t.buy.HoldingID); !errors.Is(err, trade.ErrNotFound) {
		c.fail(fmt.Sprintf("GetHolding(%s, %d)", v.a, t.buy.HoldingID), "not found: the holding was sold", fmt.Sprint(err),
			"the sold holding is still there")
	}
}
