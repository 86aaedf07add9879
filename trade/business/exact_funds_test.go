package business_test

import (
	"context"
	"testing"

	"github.com/tradebench/tradebench/internal/testing/racetest"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/store/storetest"
)

// TestBuyWithExactlyEnoughCash: an order costing exactly the balance (price × quantity + fee)
// is accepted and leaves $0.00 — the balance may reach zero, never go below it — and a cent
// more is refused with nothing changed.
// Mutant business-exact-funds-refused: checkFunds refusing a buy whose cost equals the balance
// (`>=` for `>`).
func TestBuyWithExactlyEnoughCash(t *testing.T) {
	racetest.SkipSerial(t, serialCalls)
	storetest.Each(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st, svc := setup(t, dsn, small(), business.DefaultOptions())
		setPrice(t, st, "s:1", trade.Cents(1000)) // $10.00
		// 3 × $10.00 + $24.95 = $54.95, exactly the opening balance
		registerWith(t, svc, "exact", trade.Cents(5495))
		// a cent short first: refused, nothing changes
		registerWith(t, svc, "short", trade.Cents(5494))
		_, err := svc.Buy(ctx, "short", "s:1", 3)
		wantCode(t, "a buy a cent beyond the balance", err, trade.CodeInsufficientFunds)
		if a := must[trade.Account](t)(svc.GetAccountData(ctx, "short")); a.Balance != trade.Cents(5494) {
			t.Fatalf("a refused buy changed the balance to %s", a.Balance)
		}

		o, err := svc.Buy(ctx, "exact", "s:1", 3)
		if err != nil {
			t.Fatalf("a buy costing exactly the balance was refused: %v", err)
		}
		if o.Status != trade.StatusClosed {
			t.Fatalf("sync buy: status %s, want closed", o.Status)
		}
		a := must[trade.Account](t)(svc.GetAccountData(ctx, "exact"))
		if a.Balance != 0 {
			t.Fatalf("balance after spending it all: %s, want $0.00", a.Balance)
		}
		if _, err := svc.GetHolding(ctx, "exact", o.HoldingID); err != nil {
			t.Fatalf("the holding bought with the last cent: %v", err)
		}
	})
}
