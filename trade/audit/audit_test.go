package audit_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tradebench/tradebench/internal/dsn"
	"github.com/tradebench/tradebench/internal/testing/pgtest"
	"github.com/tradebench/tradebench/internal/testing/racetest"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/audit"
	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/store"
	"github.com/tradebench/tradebench/trade/store/sqlstore"
	"github.com/tradebench/tradebench/trade/store/storetest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func spec() store.LoadSpec {
	s := dataset.DefaultSpec()
	s.Accounts, s.Quotes, s.Seed = 60, 15, 3
	return s
}

// rawExec runs SQL straight on the database behind the DSN db, past the service: the corruptions an
// audit must catch are exactly the changes the service would never make.
func rawExec(t *testing.T, db string, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	driver, rest, err := dsn.Parse(db)
	if err != nil {
		t.Fatal(err)
	}
	switch driver {
	case "sqlite":
		db, err := sql.Open("sqlite", rest)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, s := range stmts {
			if _, err := db.ExecContext(ctx, s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
	case "postgres":
		c, err := pgx.Connect(ctx, rest)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		for _, s := range stmts {
			if _, err := c.Exec(ctx, s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
	}
}

func runAudit(t *testing.T, st store.Store, opts audit.Options) *audit.Summary {
	t.Helper()
	s, err := audit.Run(context.Background(), st, opts)
	if err != nil {
		t.Fatalf("audit: %v", err)
	}
	return s
}

func wantPass(t *testing.T, st store.Store, when string) *audit.Summary {
	t.Helper()
	s := runAudit(t, st, audit.Options{})
	if !s.Passed || s.ViolationCount != 0 || len(s.Violations) != 0 {
		t.Fatalf("%s: audit failed: %d violations %v", when, s.ViolationCount, s.Violations)
	}
	return s
}

// wantFail: the audit fails with exactly the kinds given (and n violations of each).
func wantFail(t *testing.T, st store.Store, when string, kinds map[string]int64) *audit.Summary {
	t.Helper()
	s := runAudit(t, st, audit.Options{})
	if s.Passed {
		t.Fatalf("%s: audit passed, want violations %v", when, kinds)
	}
	if fmt.Sprint(s.ByKind) != fmt.Sprint(kinds) {
		t.Fatalf("%s: violations by kind %v, want %v; listed: %v", when, s.ByKind, kinds, s.Violations)
	}
	var sum int64
	for _, n := range kinds {
		sum += n
	}
	if s.ViolationCount != sum || int64(len(s.Violations)) != sum {
		t.Fatalf("%s: %d violations (%d listed), want %d: %v", when, s.ViolationCount, len(s.Violations), sum, s.Violations)
	}
	return s
}

// mixedLoad drives concurrent buys, sells (whole and partial) and closed-order alerts through
// the service, as users would, and returns how many orders completed.
func mixedLoad(t *testing.T, svc trade.Service, users, workers, iterations int) int {
	t.Helper()
	ctx := context.Background()
	var (
		mu   sync.Mutex
		done int
		wg   sync.WaitGroup
		errs = make(chan error, workers)
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 42))
			for i := 0; i < iterations; i++ {
				// Few users (uid:0…uid:7), so workers collide on accounts and holdings; the corruptions
				// below use the untouched holdings of uid:20.
				user := dataset.UserID(r.IntN(users))
				var err error
				switch r.IntN(4) {
				case 0, 1:
					_, err = svc.Buy(ctx, user, dataset.Symbol(r.IntN(spec().Quotes)), 1+r.Int64N(50))
				case 2:
					var hs []trade.Holding
					if hs, err = svc.GetHoldings(ctx, user); err == nil && len(hs) > 0 {
						h := hs[r.IntN(len(hs))]
						qty := int64(0)
						if r.IntN(2) == 0 {
							qty = 1 + r.Int64N(h.Quantity)
						}
						_, err = svc.Sell(ctx, user, h.HoldingID, qty)
					}
				case 3:
					_, err = svc.GetClosedOrders(ctx, user)
				}
				if e := trade.AsError(err); e != nil {
					continue // a holding another worker sold first: the service refused, rightly
				}
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				done++
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("load: %v", err)
	}
	return done
}

func TestAuditCatchesCorruption(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dsn string) {
		st := storetest.Loaded(t, dsn, spec())
		li, err := st.Loaded(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		s := wantPass(t, st, "after load")
		if s.Accounts != 60 || s.Orders != 300 || s.Placed != 0 || s.Holdings != 300 || s.Quotes != 15 || s.Checks != audit.Checks {
			t.Fatalf("audit scope %+v, want 60 accounts, 300 orders (none placed since the load), 300 holdings, 15 quotes", s)
		}

		svc := business.New(st, business.Options{Seed: 5})
		iters := 60
		if testing.Short() {
			iters = 20
		}
		n := mixedLoad(t, svc, 8, 6, iters)
		t.Logf("%d operations completed", n)
		s = wantPass(t, st, "after a mixed concurrent load")
		if s.Orders <= 300 || s.Placed != s.Orders-300 {
			t.Fatalf("the load placed no orders, or they are not counted as placed since the load: %d orders, %d placed", s.Orders, s.Placed)
		}
		if racetest.Enabled {
			// What follows corrupts the tables and audits them, one statement after another on
			// this goroutine (package audit starts none): nothing for the race detector, which
			// has checked the concurrent load above. The main pass runs it.
			t.Log("the corruption cases are left to the main pass (nothing for the race detector)")
			return
		}

		// A completed buy and a completed sell placed by the run, to corrupt.
		buy, sell := runOrder(t, st, li, trade.Buy, 8), runOrder(t, st, li, trade.Sell, 8)
		total := buy.Price.Times(buy.Quantity) + buy.Fee
		maxH := li.MaxHoldingID + 1_000_000
		keyed, err := svc.Buy(trade.WithIdempotencyKey(context.Background(), "audit-key-1"), "uid:0", "s:1", 1)
		if err != nil {
			t.Fatal(err)
		}
		keyRow := fmt.Sprintf("INSERT INTO requestkeys VALUES ('audit-key-1', 'buy', 'uid:0', %d)", keyed.OrderID)
		cases := []struct {
			name        string
			apply, undo []string
			kinds       map[string]int64
		}{
			{"balance changed", []string{"UPDATE accounts SET balance = balance + 1 WHERE accountid = 3"},
				[]string{"UPDATE accounts SET balance = balance - 1 WHERE accountid = 3"},
				map[string]int64{audit.KindBalance: 1}},
			// what a buy without a funds check does: the audit did not notice an overdrawn account
			{"an account overdrawn",
				[]string{"UPDATE accounts SET balance = -balance - 1, openbalance = openbalance - 2 * balance - 1 WHERE accountid = 4"},
				[]string{"UPDATE accounts SET openbalance = openbalance - 2 * balance - 1, balance = -balance - 1 WHERE accountid = 4"},
				map[string]int64{audit.KindNegative: 1}},
			{"a buy applied twice: balance debited and volume added again", []string{
				fmt.Sprintf("UPDATE accounts SET balance = balance - %d WHERE accountid = %d", total, buy.AccountID),
				fmt.Sprintf("UPDATE quotes SET volume = volume + %d WHERE symbol = '%s'", buy.Quantity, buy.Symbol)},
				[]string{
					fmt.Sprintf("UPDATE accounts SET balance = balance + %d WHERE accountid = %d", total, buy.AccountID),
					fmt.Sprintf("UPDATE quotes SET volume = volume - %d WHERE symbol = '%s'", buy.Quantity, buy.Symbol)},
				map[string]int64{audit.KindBalance: 1, audit.KindVolume: 1}},
			{"a buy applied twice, holding and all (the order row names the second holding)", []string{
				fmt.Sprintf("UPDATE accounts SET balance = balance - %d WHERE accountid = %d", total, buy.AccountID),
				fmt.Sprintf("UPDATE quotes SET volume = volume + %d WHERE symbol = '%s'", buy.Quantity, buy.Symbol),
				fmt.Sprintf("INSERT INTO holdings SELECT %d, accountid, symbol, quantity, price, completiondate FROM orders WHERE orderid = %d",
					maxH, buy.OrderID)},
				[]string{
					fmt.Sprintf("UPDATE accounts SET balance = balance + %d WHERE accountid = %d", total, buy.AccountID),
					fmt.Sprintf("UPDATE quotes SET volume = volume - %d WHERE symbol = '%s'", buy.Quantity, buy.Symbol),
					fmt.Sprintf("DELETE FROM holdings WHERE holdingid = %d", maxH)},
				map[string]int64{audit.KindBalance: 1, audit.KindVolume: 1, audit.KindHolding: 1}},
			{"one buy credited to a holding twice", []string{
				fmt.Sprintf("INSERT INTO orders SELECT %d, accountid, holdingid, symbol, ordertype, status, opendate, completiondate, "+
					"quantity, price, fee FROM orders WHERE orderid = %d", maxH, buy.OrderID),
				fmt.Sprintf("UPDATE accounts SET balance = balance - %d WHERE accountid = %d", total, buy.AccountID),
				fmt.Sprintf("UPDATE quotes SET volume = volume + %d WHERE symbol = '%s'", buy.Quantity, buy.Symbol)},
				[]string{
					fmt.Sprintf("DELETE FROM orders WHERE orderid = %d", maxH),
					fmt.Sprintf("UPDATE accounts SET balance = balance + %d WHERE accountid = %d", total, buy.AccountID),
					fmt.Sprintf("UPDATE quotes SET volume = volume - %d WHERE symbol = '%s'", buy.Quantity, buy.Symbol)},
				// money and volume match the two rows; the holding does not
				map[string]int64{audit.KindApplied2: 1}},
			{"a sell applied twice to its holding", []string{
				fmt.Sprintf("INSERT INTO orders SELECT %d, accountid, holdingid, symbol, ordertype, status, opendate, completiondate, "+
					"quantity, price, fee FROM orders WHERE orderid = %d", maxH, sell.OrderID)},
				[]string{fmt.Sprintf("DELETE FROM orders WHERE orderid = %d", maxH)},
				// the copied sell row credits the account and adds volume with no money moved
				dupSellKinds(t, st, sell)},
			{"an extra holding with no buy", []string{
				fmt.Sprintf("INSERT INTO holdings SELECT %d, accountid, symbol, quantity, purchaseprice, purchasedate FROM holdings WHERE "+
					"holdingid = 101", maxH)},
				[]string{fmt.Sprintf("DELETE FROM holdings WHERE holdingid = %d", maxH)},
				map[string]int64{audit.KindHolding: 1}},
			{"a holding's quantity changed", []string{"UPDATE holdings SET quantity = quantity + 1 WHERE holdingid = 102"},
				[]string{"UPDATE holdings SET quantity = quantity - 1 WHERE holdingid = 102"},
				map[string]int64{audit.KindHolding: 1}},
			{"a holding lost", []string{"DELETE FROM holdings WHERE holdingid = 103"},
				[]string{"INSERT INTO holdings SELECT * FROM holdings_base WHERE holdingid = 103"},
				map[string]int64{audit.KindHolding: 1}},
			{"an order of no account", []string{
				fmt.Sprintf("INSERT INTO orders SELECT %d, 999999, NULL, symbol, 'sell', 'closed', opendate, completiondate, quantity, price, "+
					"fee FROM orders WHERE orderid = 1", maxH)},
				[]string{fmt.Sprintf("DELETE FROM orders WHERE orderid = %d", maxH)},
				// a done order since the load also counts in its quote's volume
				map[string]int64{audit.KindOrder: 1, audit.KindVolume: 1}},
			{"a quote's volume bumped", []string{"UPDATE quotes SET volume = volume + 7 WHERE symbol = 's:4'"},
				[]string{"UPDATE quotes SET volume = volume - 7 WHERE symbol = 's:4'"},
				map[string]int64{audit.KindVolume: 1}},
			{"a second key naming one order", []string{
				fmt.Sprintf("INSERT INTO requestkeys VALUES ('audit-key-2', 'buy', 'uid:0', %d)", keyed.OrderID)},
				[]string{"DELETE FROM requestkeys WHERE idemkey = 'audit-key-2'"},
				map[string]int64{audit.KindKey: 1}},
			{"a buy's key naming another user's order", []string{
				fmt.Sprintf("INSERT INTO requestkeys VALUES ('audit-key-3', 'buy', 'nobody', %d)", buy.OrderID)},
				[]string{"DELETE FROM requestkeys WHERE idemkey = 'audit-key-3'"},
				map[string]int64{audit.KindKey: 1}},
			// what a replay does where the key is not unique: the key twice, its order twice
			{"a key stored twice (the table lost its primary key)", []string{
				"CREATE TABLE rk2 AS SELECT * FROM requestkeys", "DROP TABLE requestkeys", "ALTER TABLE rk2 RENAME TO requestkeys", keyRow},
				[]string{"DROP TABLE requestkeys", sqlstore.RequestKeysDDL, keyRow},
				map[string]int64{audit.KindKey: 2}},
			{"an order left open", []string{
				fmt.Sprintf("INSERT INTO orders SELECT %d, accountid, NULL, symbol, 'buy', 'open', opendate, NULL, quantity, price, fee FROM "+
					"orders WHERE orderid = 1", maxH)},
				[]string{fmt.Sprintf("DELETE FROM orders WHERE orderid = %d", maxH)},
				map[string]int64{audit.KindOpen: 1}},
		}
		for _, c := range cases {
			rawExec(t, dsn, c.apply...)
			s := wantFail(t, st, c.name, c.kinds)
			t.Logf("%s: %v", c.name, s.Violations)
			if c.kinds[audit.KindOpen] > 0 {
				// Allowed, the open order is listed but is no violation.
				a := runAudit(t, st, audit.Options{AllowOpen: true})
				if !a.Passed || a.OpenOrders != 1 || len(a.Open) != 1 || !strings.Contains(a.Open[0], "open") {
					t.Fatalf("%s, allowed: %+v", c.name, a)
				}
			}
			rawExec(t, dsn, c.undo...)
			wantPass(t, st, "after undoing "+c.name)
		}

		// Corrupt, then reset: the loaded state passes.
		rawExec(t, dsn, "UPDATE accounts SET balance = 0", "UPDATE quotes SET volume = volume + 1")
		s = runAudit(t, st, audit.Options{Limit: 5})
		if s.ByKind[audit.KindBalance] != 60 || s.ByKind[audit.KindVolume] != 15 || len(s.Violations) != 10 {
			t.Fatalf("everything corrupted: by kind %v, %d listed (limit 5 of each), want 60 balances and 15 volumes",
				s.ByKind, len(s.Violations))
		}
		if err := st.Reset(context.Background()); err != nil {
			t.Fatal(err)
		}
		wantPass(t, st, "after reset")
	})
}

// dupSellKinds: a sell row copied once more than it happened is counted in the balance and
// the volume, and sells its holding once more: applied-twice if that sells more than was ever
// bought (the holding was sold down below this sell's quantity, or is gone), holding otherwise
// (the holding holds more than bought − sold). The audit reports one violation per holding,
// the most telling.
func dupSellKinds(t *testing.T, st store.Store, sell trade.Order) map[string]int64 {
	t.Helper()
	k := map[string]int64{audit.KindBalance: 1, audit.KindVolume: 1}
	h, err := st.Holding(context.Background(), sell.HoldingID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		k[audit.KindApplied2] = 1
	case err != nil:
		t.Fatal(err)
	case h.Quantity < sell.Quantity:
		k[audit.KindApplied2] = 1
	default:
		k[audit.KindHolding] = 1
	}
	return k
}

// runOrder finds a completed order of type typ placed by the run (not loaded) among the
// first users' orders.
func runOrder(t *testing.T, st store.Store, li store.LoadInfo, typ trade.OrderType, users int) trade.Order {
	t.Helper()
	ctx := context.Background()
	for i := 0; i < users; i++ {
		os, err := st.Orders(ctx, dataset.AccountID(i), 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range os {
			if o.OrderID > li.MaxOrderID && o.Type == typ && (o.Status == trade.StatusClosed || o.Status == trade.StatusCompleted) {
				return o
			}
		}
	}
	t.Fatalf("the run completed no %s order", typ)
	return trade.Order{}
}

func TestAuditNeedsLoad(t *testing.T) {
	st := storetest.Open(t, storetest.SQLiteDSN(t))
	if _, err := audit.Run(context.Background(), st, audit.Options{}); err == nil || !strings.Contains(err.Error(), "not been loaded") {
		t.Fatalf("audit of an empty database: %v, want the not-loaded error", err)
	}
}

// A holding sold in full and then a new buy: the new holding must get a new id, or the old
// buy and sell orders would name it (SQLite reuses the largest rowid unless the key is
// AUTOINCREMENT), which the audit reports as one holding credited by two buys.
func TestHoldingIDsNotReused(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st := storetest.Loaded(t, dsn, spec())
		svc := business.New(st, business.Options{Seed: 9})
		seen := map[int64]bool{}
		for i := 0; i < 3; i++ {
			b, err := svc.Buy(ctx, "uid:1", "s:2", 10)
			if err != nil {
				t.Fatal(err)
			}
			if seen[b.HoldingID] {
				t.Fatalf("buy %d created holding %d, an id an earlier, sold holding had", i, b.HoldingID)
			}
			seen[b.HoldingID] = true
			if _, err := svc.Sell(ctx, "uid:1", b.HoldingID, 0); err != nil {
				t.Fatal(err)
			}
		}
		wantPass(t, st, "after buying and selling in full three times")
		if err := st.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		b, err := svc.Buy(ctx, "uid:1", "s:2", 10)
		if err != nil {
			t.Fatal(err)
		}
		li, _ := st.Loaded(ctx)
		if b.HoldingID != li.MaxHoldingID+1 {
			t.Errorf("after reset the first new holding is %d, want %d (ids restart after the loaded ones)", b.HoldingID, li.MaxHoldingID+1)
		}
		wantPass(t, st, "after reset and a buy")
	})
}
