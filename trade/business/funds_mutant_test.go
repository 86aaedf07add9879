package business_test

import (
	"context"
	"testing"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/store/storetest"
)

// TestAsyncCompletionRechecksFunds: two async buys, each affordable alone but not both, are
// placed (placing checks the balance, which neither has moved yet); completing them closes
// the first and cancels the second, and the balance stays at or above zero. It runs on SQLite
// and PostgreSQL alike and is not skipped by -short, so the completion-time check is covered
// by the quick test run too (TestConcurrentBuysCannotOverdraw reaches it only through
// PostgreSQL's async subtest, where the order processor races the placements).
//
// Mutant killed: the completion-time check in apply disabled (`if err := checkFunds(*a, *o);
// false && err != nil`) — both buys close and the balance goes negative.
func TestAsyncCompletionRechecksFunds(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		q := &queue{}
		opts := business.DefaultOptions()
		opts.Dispatch = q
		_, svc := setup(t, dsn, small(), opts)
		ord := must[trade.Order](t)
		acct := must[trade.Account](t)

		quote := must[trade.Quote](t)(svc.GetQuote(ctx, "s:2"))
		const qty = 10
		one := quote.Price.Times(qty) + trade.OrderFee // what one buy costs, at the placing price
		if _, err := svc.Register(ctx, trade.RegisterRequest{UserID: "twobuys", Password: "pw", FullName: "T", Address: "A",
			Email: "t@example.com", CreditCard: "1", OpenBalance: one + one/2}); err != nil {
			t.Fatal(err)
		}
		b1 := ord(svc.Buy(ctx, "twobuys", "s:2", qty))
		b2 := ord(svc.Buy(ctx, "twobuys", "s:2", qty))
		if b1.Status != trade.StatusOpen || b2.Status != trade.StatusOpen || b1.Total() != one || b2.Total() != one {
			t.Fatalf("placed %+v and %+v, want two open buys costing %s each", b1, b2, one)
		}
		c1 := ord(svc.CompleteOrder(ctx, b1.OrderID))
		c2 := ord(svc.CompleteOrder(ctx, b2.OrderID))
		if c1.Status != trade.StatusClosed || c2.Status != trade.StatusCancelled {
			t.Fatalf("completed: first %s, second %s; want closed, cancelled", c1.Status, c2.Status)
		}
		a := acct(svc.GetAccountData(ctx, "twobuys"))
		if a.Balance < 0 || a.Balance != one/2 {
			t.Fatalf("balance %s, want %s (one buy paid, the other cancelled)", a.Balance, one/2)
		}
		hs := must[[]trade.Holding](t)(svc.GetHoldings(ctx, "twobuys"))
		if len(hs) != 1 || hs[0].Quantity != qty {
			t.Fatalf("holdings %+v, want one of %d shares", hs, qty)
		}
	})
}
