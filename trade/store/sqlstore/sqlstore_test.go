package sqlstore

import (
	"database/sql"
	"testing"
	"time"
)

// stamp is a test store's timestamp column (microseconds).
type stamp struct{ us int64 }

func (s *stamp) UTC() time.Time { return time.UnixMicro(s.us).UTC() }

// fakeRow fills Scan's destinations as a driver does, allocating nothing itself.
type fakeRow struct{}

func (fakeRow) Scan(dest ...any) error {
	for _, d := range dest {
		switch p := d.(type) {
		case *int64:
			*p = 7
		case *int:
			*p = 2
		case *string:
			*p = "s:1"
		case *sql.NullInt64:
			*p = sql.NullInt64{Int64: 9, Valid: true}
		case *stamp:
			p.us = 1_700_000_000_000_000
		default:
			panic("unexpected destination")
		}
	}
	return nil
}

// fakeRows is n rows of fakeRow, the first of them an account page's account row (part 0).
type fakeRows struct{ n, i int }

func (f *fakeRows) Next() bool { f.i++; return f.i <= f.n }
func (f *fakeRows) Err() error { return nil }
func (f *fakeRows) Scan(dest ...any) error {
	fakeRow{}.Scan(dest...)
	if p, ok := dest[0].(*int); ok && f.i == 1 {
		*p = 0
	}
	return nil
}

// TestScanAllocations: scanning a row costs one allocation (its destinations, in one struct),
// not one per column held in a local whose address Scan takes. Mutant: the quote scanner's
// amounts back in locals (scripts/mutants.d/sqlstore-scan-locals.sed).
func TestScanAllocations(t *testing.T) {
	var sc Scan[stamp, *stamp]
	var r Scanner = fakeRow{}
	page := &fakeRows{n: 1} // the account's row alone: no order slices
	cases := map[string]func(){
		"Account":            func() { sc.Account(r) },
		"AccountWithProfile": func() { sc.AccountWithProfile(r) },
		"AccountSummary":     func() { sc.AccountSummary(r) },
		"Holding":            func() { sc.Holding(r) },
		"HoldingWithQuote":   func() { sc.HoldingWithQuote(r) },
		"Order":              func() { sc.Order(r) },
		"AccountPage":        func() { page.i = 0; sc.AccountPage(page) },
		"Quote":              func() { sc.Quote(r) },
	}
	for name, f := range cases {
		if n := testing.AllocsPerRun(100, f); n > 1 {
			t.Errorf("%s: %v allocations per row, want 1", name, n)
		}
	}
	// the account page's account row laid over the order columns comes back as the account
	pg, err := sc.AccountPage(&fakeRows{n: 3})
	if err != nil || pg.Account.Balance != 7 || pg.Account.OpenBalance != 9 || pg.Account.UserID != "s:1" || pg.Account.LogoutCount != 7 ||
		pg.Account.CreationDate.IsZero() || pg.Profile.UserID != "s:1" || pg.Profile.CreditCard != "s:1" || len(pg.Orders) != 2 || len(pg.Closed) != 0 {
		t.Errorf("AccountPage = %+v, %v", pg, err)
	}
	if _, err := sc.AccountPage(&fakeRows{n: 0}); err == nil {
		t.Error("AccountPage without the account's row: no error")
	}
	if o, err := sc.Order(r); err != nil || o.HoldingID != 9 || o.Price != 7 || o.Symbol != "s:1" || o.OpenDate.IsZero() {
		t.Errorf("Order = %+v, %v", o, err)
	}
}
