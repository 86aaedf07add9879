// Package plantest helps the stores' query plan tests: it runs every read a page makes on a
// loaded database, so each store can record the statements it ran and EXPLAIN them. It imports
// no store driver, so a driver's own (internal) tests can use it.
package plantest

import (
	"context"
	"errors"
	"reflect"
	"regexp"
	"testing"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/store"
)

// Spec is the data set the plan tests load: big enough that every table has many pages.
func Spec() dataset.Spec {
	s := dataset.DefaultSpec()
	s.Accounts, s.Quotes = 2000, 500
	return s
}

// BigTables matches the tables that grow with the data set: a full scan of one of them in a
// page's query is a bug, however fast it is on a small database.
var BigTables = regexp.MustCompile(`\b(accounts|holdings|orders|quotes)\b`)

// ReadAll calls every store.Reader method once, as the pages do for the loaded user uid: login
// (the password), home, account, portfolio, quotes, market summary, and the order relay's
// reads. It fails the test on an error or an empty answer where the data set has rows. The
// reads are grouped below as the pages make them; each page's one-statement reads are checked
// against the reads they stand for.
func ReadAll(t testing.TB, r store.Reader, uid string) {
	t.Helper()
	ctx := context.Background()
	a := readAccount(ctx, t, r, uid)
	hs := readByAccount(ctx, t, r, a)
	readPortfolio(ctx, t, r, uid, hs)
	readAccountPage(ctx, t, r, uid)
	readQuotes(ctx, t, r, hs[0].Symbol)
	if s, ok := r.(store.Store); ok {
		if _, err := s.OpenOrders(ctx, 0, 64); err != nil {
			t.Fatalf("OpenOrders: %v", err)
		}
		if _, err := s.OrdersAfter(ctx, 0, 64); err != nil {
			t.Fatalf("OrdersAfter: %v", err)
		}
	}
}

// readAccount makes the login's and the home page's reads of uid's account.
func readAccount(ctx context.Context, t testing.TB, r store.Reader, uid string) trade.Account {
	t.Helper()
	a, err := r.Account(ctx, uid)
	if err != nil {
		t.Fatalf("Account(%s): %v", uid, err)
	}
	p, err := r.Profile(ctx, uid)
	if err != nil {
		t.Fatalf("Profile: %v", err)
	}
	// the account page's one statement must answer what the two do
	a2, p2, err := r.AccountWithProfile(ctx, uid)
	if err != nil || a2 != a || p2 != p {
		t.Fatalf("AccountWithProfile = %+v, %+v, %v; want %+v, %+v", a2, p2, err, a, p)
	}
	if _, _, err := r.AccountWithProfile(ctx, "no such user"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("AccountWithProfile of a missing user: %v, want store.ErrNotFound", err)
	}
	// the home page's one statement must answer what the account and its holdings do
	allHs, err := r.UserHoldings(ctx, uid)
	if err != nil {
		t.Fatalf("UserHoldings: %v", err)
	}
	a3, sum, err := r.AccountSummary(ctx, uid)
	if want := trade.SummarizeHoldings(allHs); err != nil || a3 != a || sum != want || sum.Count == 0 {
		t.Fatalf("AccountSummary = %+v, %+v, %v; want %+v, %+v", a3, sum, err, a, want)
	}
	if _, _, err := r.AccountSummary(ctx, "no such user"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("AccountSummary of a missing user: %v, want store.ErrNotFound", err)
	}
	if _, err := r.PasswordHash(ctx, uid); err != nil {
		t.Fatalf("PasswordHash: %v", err)
	}
	return a
}

// readByAccount makes the reads by account and row id (the trades' and the relay's), and
// returns the account's holdings.
func readByAccount(ctx context.Context, t testing.TB, r store.Reader, a trade.Account) []trade.Holding {
	t.Helper()
	hs, err := r.Holdings(ctx, a.AccountID)
	if err != nil || len(hs) == 0 {
		t.Fatalf("Holdings: %d, %v", len(hs), err)
	}
	if _, err := r.Holding(ctx, hs[0].HoldingID); err != nil {
		t.Fatalf("Holding: %v", err)
	}
	os, err := r.Orders(ctx, a.AccountID, 100)
	if err != nil || len(os) == 0 {
		t.Fatalf("Orders: %d, %v", len(os), err)
	}
	if _, err := r.Order(ctx, os[0].OrderID); err != nil {
		t.Fatalf("Order: %v", err)
	}
	if _, err := r.ClosedOrders(ctx, a.AccountID); err != nil {
		t.Fatalf("ClosedOrders: %v", err)
	}
	return hs
}

// readPortfolio makes the portfolio page's reads of uid, whose holdings are hs.
func readPortfolio(ctx context.Context, t testing.TB, r store.Reader, uid string, hs []trade.Holding) {
	t.Helper()
	if hs, err := r.UserHoldings(ctx, uid); err != nil || len(hs) == 0 {
		t.Fatalf("UserHoldings: %d, %v", len(hs), err)
	}
	hq, qs, err := r.UserHoldingsWithQuotes(ctx, uid)
	if err != nil || len(hq) != len(hs) || len(qs) != len(hs) {
		t.Fatalf("UserHoldingsWithQuotes: %d holdings, %d quotes, %v; want %d", len(hq), len(qs), err, len(hs))
	}
	for i := range hs {
		want, err := r.Quote(ctx, hs[i].Symbol)
		if err != nil {
			t.Fatalf("Quote(%s): %v", hs[i].Symbol, err)
		}
		if hq[i] != hs[i] || qs[i] != want {
			t.Fatalf("UserHoldingsWithQuotes[%d] = %+v, %+v; want %+v, %+v", i, hq[i], qs[i], hs[i], want)
		}
	}
	if _, _, err := r.UserHoldingsWithQuotes(ctx, "no such user"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("UserHoldingsWithQuotes of a missing user: %v, want store.ErrNotFound", err)
	}
}

// readAccountPage makes the account page's reads of uid: its one statement must answer what the
// reads it stands for do.
func readAccountPage(ctx context.Context, t testing.TB, r store.Reader, uid string) {
	t.Helper()
	if os, err := r.UserOrders(ctx, uid, 100); err != nil || len(os) == 0 {
		t.Fatalf("UserOrders: %d, %v", len(os), err)
	}
	closed, err := r.UserClosedOrders(ctx, uid)
	if err != nil {
		t.Fatalf("UserClosedOrders: %v", err)
	}
	recent, err := r.UserOrders(ctx, uid, 3)
	if err != nil {
		t.Fatalf("UserOrders: %v", err)
	}
	acct, prof, err := r.AccountWithProfile(ctx, uid)
	if err != nil {
		t.Fatalf("AccountWithProfile: %v", err)
	}
	want := trade.AccountPage{Account: acct, Profile: prof, Orders: recent, Closed: closed}
	if pg, err := r.UserAccountPage(ctx, uid, 3); err != nil || !reflect.DeepEqual(pg, want) {
		t.Fatalf("UserAccountPage = %+v, %v; want %+v", pg, err, want)
	}
	if _, err := r.UserAccountPage(ctx, "no such user", 3); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("UserAccountPage of a missing user: %v, want store.ErrNotFound", err)
	}
}

// readQuotes makes the quotes page's and the market summary's reads; symbol is a loaded one.
func readQuotes(ctx context.Context, t testing.TB, r store.Reader, symbol string) {
	t.Helper()
	if _, err := r.Quote(ctx, symbol); err != nil {
		t.Fatalf("Quote: %v", err)
	}
	if qs, err := r.Quotes(ctx, []string{"s:0", "s:1", "s:2", "s:3", "s:4"}); err != nil || len(qs) != 5 {
		t.Fatalf("Quotes: %d, %v", len(qs), err)
	}
	if qs, err := r.IndexQuotes(ctx); err != nil || len(qs) == 0 {
		t.Fatalf("IndexQuotes: %d, %v", len(qs), err)
	}
}
