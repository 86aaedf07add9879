package store_test

import (
	"context"
	"errors"
	"reflect"
	"sort"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/tradebench/tradebench/internal/testing/pgtest"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/store"
	"github.com/tradebench/tradebench/trade/store/storetest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func small() store.LoadSpec {
	s := dataset.DefaultSpec()
	s.Accounts, s.Quotes, s.Seed = 50, 20, 42
	return s
}

// The loaded data is exactly what the generator makes, on every store.
func TestLoadMatchesGenerator(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		spec := small()
		st := storetest.Loaded(t, dsn, spec)
		got := storetest.Take(t, st, storetest.Users(spec.Accounts+5), storetest.Symbols(spec.Quotes+5))
		if len(got.Accounts) != spec.Accounts || len(got.Quotes) != spec.Quotes {
			t.Fatalf("loaded %d accounts and %d quotes, want %d and %d", len(got.Accounts), len(got.Quotes), spec.Accounts, spec.Quotes)
		}
		hash := got.Accounts["uid:0"].PasswordHash
		if err := bcrypt.CompareHashAndPassword([]byte(hash), []byte(dataset.Password)); err != nil {
			t.Fatalf("stored hash does not match the password %q: %v", dataset.Password, err)
		}
		if c, _ := bcrypt.Cost([]byte(hash)); c != spec.HashCost {
			t.Errorf("hash cost %d, want %d", c, spec.HashCost)
		}
		if d := storetest.Diff(storetest.Generated(spec, hash), got); d != "" {
			t.Fatalf("loaded data differs from the generator:\n%s", d)
		}
		li, err := st.Loaded(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if li.Spec != spec || li.MaxAccountID != 50 || li.MaxHoldingID != 250 || li.MaxOrderID != 250 {
			t.Errorf("load marker %+v", li)
		}
		// The loaded balances already satisfy the audit invariant.
		for u, a := range got.Accounts {
			want := a.Account.OpenBalance
			for _, o := range a.Orders {
				want -= o.Total()
			}
			if a.Account.Balance != want {
				t.Errorf("%s: balance %s, want open balance minus loaded buys %s", u, a.Account.Balance, want)
			}
		}
	})
}

// One seed, one data set; another seed, another.
func TestLoadDeterministic(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		spec := small()
		st := storetest.Loaded(t, dsn, spec)
		users, syms := storetest.Users(spec.Accounts), storetest.Symbols(spec.Quotes)
		first := storetest.Take(t, st, users, syms).WithoutHashes()
		if err := st.Load(ctx, spec, nil); err != nil {
			t.Fatal(err)
		}
		if d := storetest.Diff(first, storetest.Take(t, st, users, syms).WithoutHashes()); d != "" {
			t.Fatalf("second load with the same seed differs:\n%s", d)
		}
		spec.Seed++
		if err := st.Load(ctx, spec, nil); err != nil {
			t.Fatal(err)
		}
		if storetest.Diff(first, storetest.Take(t, st, users, syms).WithoutHashes()) == "" {
			t.Fatal("a different seed loaded the same data")
		}
	})
}

func TestLoadProgressAndBadSpec(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st := storetest.Open(t, dsn)
		if _, err := st.Loaded(ctx); !errors.Is(err, store.ErrNotLoaded) {
			t.Fatalf("Loaded on an empty database = %v, want ErrNotLoaded", err)
		}
		if err := st.Reset(ctx); !errors.Is(err, store.ErrNotLoaded) {
			t.Fatalf("Reset on an empty database = %v, want ErrNotLoaded", err)
		}
		bad := small()
		bad.Accounts = 0
		if err := st.Load(ctx, bad, nil); err == nil {
			t.Fatal("Load accepted 0 accounts")
		}
		var last, total int64
		if err := st.Load(ctx, small(), func(d, tot int64) { last, total = d, tot }); err != nil {
			t.Fatal(err)
		}
		if total == 0 || last != total {
			t.Fatalf("progress ended at %d of %d", last, total)
		}
	})
}

// Reset puts back exactly the loaded state after every kind of change, and ids continue
// after the loaded ones.
func TestResetRestoresLoadedState(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		spec := small()
		st := storetest.Loaded(t, dsn, spec)
		users, syms := storetest.Users(spec.Accounts, "newbie"), storetest.Symbols(spec.Quotes)
		loaded := storetest.Take(t, st, users, syms)
		now := time.Now().UTC().Truncate(time.Microsecond)
		var newOrder, newHolding int64
		err := st.Update(ctx, func(tx store.Tx) error {
			a, err := tx.LockAccount(ctx, "uid:3")
			if err != nil {
				return err
			}
			a.Balance -= 12345
			a.LoginCount += 3
			a.LogoutCount++
			a.LastLogin = now
			if err := tx.UpdateAccount(ctx, a); err != nil {
				return err
			}
			if err := tx.UpdateProfile(ctx, trade.AccountProfile{UserID: "uid:4", FullName: "x", Address: "y", Email: "z", CreditCard: "c"},
				"newhash"); err != nil {
				return err
			}
			hs, err := tx.Holdings(ctx, a.AccountID)
			if err != nil {
				return err
			}
			if err := tx.DeleteHolding(ctx, hs[0].HoldingID); err != nil {
				return err
			}
			if err := tx.SetHoldingQuantity(ctx, hs[1].HoldingID, 1); err != nil {
				return err
			}
			if newHolding, err = tx.CreateHolding(ctx, trade.Holding{AccountID: a.AccountID, Symbol: "s:1", Quantity: 7, PurchasePrice: 100,
				PurchaseDate: now}); err != nil {
				return err
			}
			if newOrder, err = tx.CreateOrder(ctx, trade.Order{AccountID: a.AccountID, Symbol: "s:1", Type: trade.Buy, Status: trade.StatusClosed,
				OpenDate: now, CompletionDate: now, Quantity: 7, Price: 100, Fee: trade.OrderFee, HoldingID: newHolding}); err != nil {
				return err
			}
			q, err := tx.LockQuote(ctx, "s:2")
			if err != nil {
				return err
			}
			q.Price, q.Volume, q.High = 99999, q.Volume+1000, 99999
			if err := tx.UpdateQuote(ctx, q); err != nil {
				return err
			}
			_, err = tx.CreateAccount(ctx, trade.Account{UserID: "newbie", Balance: 5, OpenBalance: 5, CreationDate: now},
				trade.AccountProfile{UserID: "newbie"}, "h")
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if newOrder != 251 || newHolding != 251 {
			t.Errorf("new ids %d, %d; want 251 after the loaded 250", newOrder, newHolding)
		}
		if storetest.Diff(loaded, storetest.Take(t, st, users, syms)) == "" {
			t.Fatal("the changes did not change the snapshot")
		}
		if err := st.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		if d := storetest.Diff(loaded, storetest.Take(t, st, users, syms)); d != "" {
			t.Fatalf("after reset:\n%s", d)
		}
		if _, err := st.Order(ctx, newOrder); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("order %d survived reset: %v", newOrder, err)
		}
		// Ids start again after the loaded ones, as after a fresh load.
		err = st.Update(ctx, func(tx store.Tx) error {
			id, err := tx.CreateOrder(ctx, trade.Order{AccountID: 1, Symbol: "s:1", Type: trade.Buy, Status: trade.StatusOpen, OpenDate: now,
				Quantity: 1, Price: 1, Fee: 1})
			if err == nil && id != 251 {
				t.Errorf("first order id after reset %d, want 251", id)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		// Reset of an unchanged database changes nothing.
		if err := st.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		if err := st.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		if d := storetest.Diff(loaded, storetest.Take(t, st, users, syms)); d != "" {
			t.Fatalf("after a second reset:\n%s", d)
		}
	})
}

func TestPrimitives(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		spec := small()
		st := storetest.Loaded(t, dsn, spec)
		before := storetest.Take(t, st, storetest.Users(spec.Accounts), storetest.Symbols(spec.Quotes))

		// A failed transaction leaves nothing behind.
		boom := errors.New("boom")
		err := st.Update(ctx, func(tx store.Tx) error {
			a, err := tx.LockAccount(ctx, "uid:1")
			if err != nil {
				return err
			}
			a.Balance = 0
			if err := tx.UpdateAccount(ctx, a); err != nil {
				return err
			}
			if _, err := tx.CreateAccount(ctx, trade.Account{UserID: "ghost", CreationDate: time.Now()}, trade.AccountProfile{UserID: "ghost"},
				"h"); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("Update returned %v, want fn's error", err)
		}
		if d := storetest.Diff(before, storetest.Take(t, st, storetest.Users(spec.Accounts, "ghost"), storetest.Symbols(spec.Quotes))); d != "" {
			t.Fatalf("rolled-back transaction changed data:\n%s", d)
		}

		// Duplicate user ids and missing rows are reported as such.
		err = st.Update(ctx, func(tx store.Tx) error {
			_, err := tx.CreateAccount(ctx, trade.Account{UserID: "uid:0", CreationDate: time.Now()}, trade.AccountProfile{UserID: "uid:0"}, "h")
			return err
		})
		if !errors.Is(err, store.ErrDuplicate) {
			t.Fatalf("duplicate user id: %v, want ErrDuplicate", err)
		}
		for name, f := range map[string]func() error{
			"account": func() error { _, err := st.Account(ctx, "nobody"); return err },
			"holding": func() error { _, err := st.Holding(ctx, 999999); return err },
			"order":   func() error { _, err := st.Order(ctx, 999999); return err },
			"quote":   func() error { _, err := st.Quote(ctx, "s:nope"); return err },
			"update quote": func() error {
				return st.Update(ctx, func(tx store.Tx) error { return tx.UpdateQuote(ctx, trade.Quote{Symbol: "s:nope"}) })
			},
		} {
			if err := f(); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("%s: %v, want ErrNotFound", name, err)
			}
		}

		// Closed orders are handed out once.
		var id int64
		now := time.Now().UTC().Truncate(time.Microsecond)
		err = st.Update(ctx, func(tx store.Tx) error {
			var err error
			id, err = tx.CreateOrder(ctx, trade.Order{AccountID: 2, Symbol: "s:3", Type: trade.Buy, Status: trade.StatusClosed, OpenDate: now,
				CompletionDate: now, Quantity: 1, Price: 10, Fee: trade.OrderFee})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		closed, err := st.ClosedOrders(ctx, 2)
		if err != nil || len(closed) != 1 || closed[0].OrderID != id {
			t.Fatalf("ClosedOrders = %v, %v", closed, err)
		}
		for i, want := range []int{1, 0} {
			var got []trade.Order
			err := st.Update(ctx, func(tx store.Tx) error {
				var err error
				got, err = tx.CompleteClosedOrders(ctx, 2)
				return err
			})
			if err != nil || len(got) != want {
				t.Fatalf("CompleteClosedOrders call %d = %v, %v; want %d orders", i+1, got, err, want)
			}
			if want == 1 && (got[0].OrderID != id || got[0].Status != trade.StatusClosed) {
				t.Fatalf("got %+v", got[0])
			}
		}
		if o, _ := st.Order(ctx, id); o.Status != trade.StatusCompleted {
			t.Fatalf("order status %s after alert, want completed", o.Status)
		}

		// The market index is s:1__ only: with 20 quotes, s:10 … s:19 have 4 characters.
		if idx, err := st.IndexQuotes(ctx); err != nil || len(idx) != 0 {
			t.Fatalf("IndexQuotes with 20 quotes = %d quotes, %v", len(idx), err)
		}
	})
}

func TestIndexQuotes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dsn string) {
		spec := small()
		spec.Accounts, spec.Quotes = 2, 1500
		st := storetest.Loaded(t, dsn, spec)
		idx, err := st.IndexQuotes(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(idx) != 100 {
			t.Fatalf("%d index quotes, want 100 (s:100 … s:199)", len(idx))
		}
		for _, q := range idx {
			if !store.IsIndexSymbol(q.Symbol) {
				t.Errorf("%s is not an index symbol", q.Symbol)
			}
		}
	})
}

// BenchmarkLoad loads 10,000 accounts (110,000 rows with the quotes) per iteration; the
// full-size load is measured with 'time tradebench load' (see docs/benchmarks.md).
func BenchmarkLoad(b *testing.B) {
	for _, kind := range []string{"sqlite", "postgres"} {
		b.Run(kind, func(b *testing.B) {
			dsn := storetest.SQLiteDSN(b)
			if kind == "postgres" {
				dsn = pgtest.DSN(b)
			}
			st := storetest.Open(b, dsn)
			spec := small()
			spec.Accounts, spec.Quotes = 10_000, 10_000
			for b.Loop() {
				if err := st.Load(context.Background(), spec, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(spec.Rows())*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// The User* reads answer what the reads by account id answer, for a user with rows, a user
// without any and a user who does not exist.
func TestUserReads(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st := storetest.Loaded(t, dsn, small())
		a, err := st.Account(ctx, "uid:3")
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC().Truncate(time.Microsecond)
		var closedID int64
		err = st.Update(ctx, func(tx store.Tx) error {
			if _, err := tx.CreateAccount(ctx, trade.Account{UserID: "empty", CreationDate: now}, trade.AccountProfile{UserID: "empty"},
				"h"); err != nil {
				return err
			}
			closedID, err = tx.CreateOrder(ctx, trade.Order{AccountID: a.AccountID, Symbol: "s:3", Type: trade.Buy, Status: trade.StatusClosed,
				OpenDate: now, CompletionDate: now, Quantity: 1, Price: 10, Fee: trade.OrderFee})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}

		hs, err := st.Holdings(ctx, a.AccountID)
		if err != nil || len(hs) == 0 {
			t.Fatalf("Holdings: %d, %v", len(hs), err)
		}
		if got, err := st.UserHoldings(ctx, "uid:3"); err != nil || !reflect.DeepEqual(got, hs) {
			t.Errorf("UserHoldings = %v, %v; want %v", got, err, hs)
		}
		// the home page's summary: the holdings' count and exact purchase basis, with the account
		if got, sum, err := st.AccountSummary(ctx, "uid:3"); err != nil || got != a || sum != trade.SummarizeHoldings(hs) {
			t.Errorf("AccountSummary = %+v, %+v, %v; want %+v, %+v", got, sum, err, a, trade.SummarizeHoldings(hs))
		}
		if _, sum, err := st.AccountSummary(ctx, "empty"); err != nil || sum != (trade.HoldingsSummary{}) {
			t.Errorf("AccountSummary(a user without holdings) = %+v, %v; want zero", sum, err)
		}
		if _, _, err := st.AccountSummary(ctx, "nobody"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("AccountSummary(no such user) = %v, want ErrNotFound", err)
		}
		os, err := st.Orders(ctx, a.AccountID, 3)
		if err != nil || len(os) != 3 {
			t.Fatalf("Orders: %d, %v", len(os), err)
		}
		if got, err := st.UserOrders(ctx, "uid:3", 3); err != nil || !reflect.DeepEqual(got, os) {
			t.Errorf("UserOrders = %v, %v; want %v", got, err, os)
		}
		closed, err := st.UserClosedOrders(ctx, "uid:3")
		if err != nil || len(closed) != 1 || closed[0].OrderID != closedID {
			t.Errorf("UserClosedOrders = %v, %v; want order %d", closed, err, closedID)
		}
		// the account page's one statement: the account and profile, the recent orders (the
		// closed one among them, the most recent) and the closed ones, as the separate reads
		// answer them
		acct, prof, err := st.AccountWithProfile(ctx, "uid:3")
		if err != nil {
			t.Fatal(err)
		}
		want := trade.AccountPage{Account: acct, Profile: prof, Orders: os, Closed: closed}
		if pg, err := st.UserAccountPage(ctx, "uid:3", 3); err != nil || !reflect.DeepEqual(pg, want) {
			t.Errorf("UserAccountPage = %+v, %v; want %+v", pg, err, want)
		}
		if pg, err := st.UserAccountPage(ctx, "empty", 3); err != nil || pg.Account.UserID != "empty" || len(pg.Orders) != 0 || len(pg.Closed) != 0 {
			t.Errorf("UserAccountPage(a user without orders) = %+v, %v; want the account, no orders", pg, err)
		}
		if _, err := st.UserAccountPage(ctx, "nobody", 3); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("UserAccountPage(no such user) = %v, want ErrNotFound", err)
		}

		for name, f := range map[string]func(string) (int, error){
			"UserHoldings":     func(u string) (int, error) { r, err := st.UserHoldings(ctx, u); return len(r), err },
			"UserOrders":       func(u string) (int, error) { r, err := st.UserOrders(ctx, u, 100); return len(r), err },
			"UserClosedOrders": func(u string) (int, error) { r, err := st.UserClosedOrders(ctx, u); return len(r), err },
		} {
			if n, err := f("empty"); err != nil || n != 0 {
				t.Errorf("%s(a user without rows) = %d rows, %v; want none and no error", name, n, err)
			}
			if _, err := f("nobody"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("%s(no such user) = %v, want ErrNotFound", name, err)
			}
		}
	})
}

// Quotes answers each existing symbol once, whatever the list repeats or lacks.
func TestQuotesOnceEach(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dsn string) {
		st := storetest.Loaded(t, dsn, small())
		qs, err := st.Quotes(context.Background(), []string{"s:3", "s:1", "s:3", "s:nope", "s:1", "s:2"})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, q := range qs {
			got = append(got, q.Symbol)
		}
		sort.Strings(got)
		if want := []string{"s:1", "s:2", "s:3"}; !reflect.DeepEqual(got, want) {
			t.Errorf("Quotes = %v, want %v", got, want)
		}
	})
}
