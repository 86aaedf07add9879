package business_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/store"
	"github.com/tradebench/tradebench/trade/store/storetest"
)

// lateStore answers "no such key" to the next misses look-ups of a request key: what a request
// sees when its twin commits between its look-up and its transaction. The store's unique key
// must then refuse the second placement, and the loser answer the winner's outcome.
type lateStore struct {
	store.Store
	misses atomic.Int64
}

func (l *lateStore) RequestKey(ctx context.Context, key string) (trade.RequestKey, error) {
	if l.misses.Add(-1) >= 0 {
		return trade.RequestKey{}, store.ErrNotFound
	}
	return l.Store.RequestKey(ctx, key)
}

func orderCount(t *testing.T, svc *business.Service, uid string) int {
	t.Helper()
	return len(must[[]trade.Order](t)(svc.GetOrders(context.Background(), uid, 0)))
}

// TestKeyedRequestRacingItsTwin: a keyed buy, sell, registration and password change whose
// look-up missed the first request's key place nothing more and answer the first one's
// outcome; concurrent buys with one key place one order.
func TestKeyedRequestRacingItsTwin(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st := storetest.Loaded(t, dsn, small())
		late := &lateStore{Store: st}
		svc := business.New(late, business.Options{Seed: 5})
		registerWith(t, svc, "racer", trade.Money(1_000_000_00))
		sym := "s:0"

		kb := trade.WithIdempotencyKey(ctx, trade.NewIdempotencyKey())
		b1 := must[trade.Order](t)(svc.Buy(kb, "racer", sym, 2))
		late.misses.Store(1)
		b2 := must[trade.Order](t)(svc.Buy(kb, "racer", sym, 2))
		if b2.OrderID != b1.OrderID || orderCount(t, svc, "racer") != 1 {
			t.Fatalf("a keyed buy whose look-up missed: order %d (first %d), %d orders; want the first and 1",
				b2.OrderID, b1.OrderID, orderCount(t, svc, "racer"))
		}

		ks := trade.WithIdempotencyKey(ctx, trade.NewIdempotencyKey())
		s1 := must[trade.Order](t)(svc.Sell(ks, "racer", b1.HoldingID, 0))
		late.misses.Store(1)
		s2, err := svc.Sell(ks, "racer", b1.HoldingID, 0) // the holding is gone: the first sold it
		if err != nil || s2.OrderID != s1.OrderID {
			t.Fatalf("a keyed sell whose look-up missed: %+v, %v; want the first, order %d", s2, err, s1.OrderID)
		}

		kr := trade.WithIdempotencyKey(ctx, trade.NewIdempotencyKey())
		reg := trade.RegisterRequest{UserID: "racer2", Password: "pw", FullName: "R", Address: "A", Email: "r@example.com",
			CreditCard: "1", OpenBalance: trade.Money(100_00)}
		a1 := must[trade.Account](t)(svc.Register(kr, reg))
		late.misses.Store(1)
		if a2, err := svc.Register(kr, reg); err != nil || a2.AccountID != a1.AccountID {
			t.Fatalf("a keyed registration whose look-up missed: %+v, %v; want account %d", a2, err, a1.AccountID)
		}

		kp := trade.WithIdempotencyKey(ctx, trade.NewIdempotencyKey())
		p := trade.AccountProfile{UserID: "racer", Password: "pw2", FullName: "N", Address: "A", Email: "n@example.com", CreditCard: "1"}
		before := must[trade.Account](t)(svc.GetAccountData(ctx, "racer")).LogoutCount
		must[trade.AccountProfile](t)(svc.UpdateAccountProfile(kp, p))
		late.misses.Store(1)
		must[trade.AccountProfile](t)(svc.UpdateAccountProfile(kp, p))
		if after := must[trade.Account](t)(svc.GetAccountData(ctx, "racer")).LogoutCount; after != before+1 {
			t.Errorf("a keyed password change whose look-up missed counted %d logouts, want 1", after-before)
		}

		// Concurrent twins (their look-ups miss as the race has it): one order, every answer it.
		kc := trade.WithIdempotencyKey(ctx, trade.NewIdempotencyKey())
		n0 := orderCount(t, svc, "racer")
		const twins = 8
		ids := make([]int64, twins)
		errs := make([]error, twins)
		var wg sync.WaitGroup
		for i := range twins {
			wg.Go(func() {
				o, err := svc.Buy(kc, "racer", sym, 1)
				ids[i], errs[i] = o.OrderID, err
			})
		}
		wg.Wait()
		for i := range twins {
			if errs[i] != nil || ids[i] != ids[0] {
				t.Errorf("twin %d: order %d, %v; twin 0 order %d", i, ids[i], errs[i], ids[0])
			}
		}
		if n := orderCount(t, svc, "racer") - n0; n != 1 {
			t.Errorf("%d concurrent buys with one key placed %d orders, want 1", twins, n)
		}

		// Reset forgets the keys the run stored, with its orders.
		if err := st.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := st.RequestKey(ctx, trade.IdempotencyKeyOf(kb)); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a request key after Reset: %v, want ErrNotFound", err)
		}
	})
}
