package business_test

import (
	"context"
	"testing"

	"github.com/tradebench/tradebench/internal/testing/racetest"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/store/storetest"
)

// TestSellCompletionCannotOverdraw: in the async modes a sell is checked when placed and
// again, under the account lock, when it completes. Here the balance covers the sell's shortfall
// (proceeds below the fee) when it is placed, but a buy completed in between takes the money:
// the sell is cancelled at completion, the balance stays ≥ 0 and the holding stays.
// Mutant checked by hand: apply skips checkFunds for a Sell → "sell completed as closed,
// balance −…".
func TestSellCompletionCannotOverdraw(t *testing.T) {
	racetest.SkipSerial(t, serialCalls)
	storetest.Each(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		q := &queue{}
		opts := business.DefaultOptions()
		opts.Dispatch = q
		st, svc := setup(t, dsn, small(), opts)
		setPrice(t, st, "s:1", trade.Cents(101))
		setPrice(t, st, "s:2", trade.Cents(100))
		ord := must[trade.Order](t)
		// $1.01 + $24.95 for the first buy, then $30.00 left.
		registerWith(t, svc, "poor", trade.Cents(5596))
		b1 := ord(svc.CompleteOrder(ctx, ord(svc.Buy(ctx, "poor", "s:1", 1)).OrderID))
		b2 := ord(svc.Buy(ctx, "poor", "s:2", 1))           // $25.95, open: $30.00 covers it
		sell := ord(svc.Sell(ctx, "poor", b1.HoldingID, 0)) // proceeds ~$1 − $24.95: $30.00 covers it
		ord(svc.CompleteOrder(ctx, b2.OrderID))             // $4.05 left
		done := ord(svc.CompleteOrder(ctx, sell.OrderID))
		a := must[trade.Account](t)(svc.GetAccountData(ctx, "poor"))
		if done.Status != trade.StatusCancelled || a.Balance != trade.Cents(405) {
			t.Fatalf("sell completed as %s, balance %s: want cancelled and $4.05", done.Status, a.Balance)
		}
		if _, err := svc.GetHolding(ctx, "poor", b1.HoldingID); err != nil {
			t.Fatalf("the cancelled sell's holding: %v", err)
		}
		// sync mode: refused when placed, nothing changes
		sync := business.New(st, business.DefaultOptions())
		_, err := sync.Sell(ctx, "poor", b1.HoldingID, 0)
		wantCode(t, "sync sell below the fee", err, trade.CodeInsufficientFunds)
		if a2 := must[trade.Account](t)(svc.GetAccountData(ctx, "poor")); a2 != a {
			t.Fatalf("a refused sell changed the account: %+v -> %+v", a, a2)
		}
	})
}
