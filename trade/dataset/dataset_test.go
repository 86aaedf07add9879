package dataset

import (
	"reflect"
	"testing"

	"github.com/tradebench/tradebench/trade"
)

func TestDeterministic(t *testing.T) {
	spec := DefaultSpec()
	spec.Accounts, spec.Quotes = 100, 50
	a, b := New(spec, "h"), New(spec, "h")
	for i := 0; i < spec.Accounts; i++ {
		if !reflect.DeepEqual(a.Account(i), b.Account(i)) {
			t.Fatalf("account %d differs between two generators with one seed", i)
		}
	}
	spec.Seed++
	c := New(spec, "h")
	if reflect.DeepEqual(a.Account(1), c.Account(1)) && a.Quote(1) == c.Quote(1) {
		t.Fatal("another seed generated the same data")
	}
}

func TestShape(t *testing.T) {
	spec := DefaultSpec()
	spec.Accounts, spec.Quotes, spec.Holdings = 10, 30, 3
	g := New(spec, "h")
	for i := 0; i < spec.Accounts; i++ {
		b := g.Account(i)
		if b.Account.UserID != UserID(i) || b.Account.AccountID != int64(i+1) || b.Account.OpenBalance != OpenBalance {
			t.Fatalf("account %d: %+v", i, b.Account)
		}
		if err := trade.ValidateProfile(b.Profile); err != nil {
			t.Fatalf("account %d: the generated profile cannot be saved unchanged: %v", i, err)
		}
		if len(b.Holdings) != 3 || len(b.Orders) != 3 {
			t.Fatalf("account %d: %d holdings, %d orders", i, len(b.Holdings), len(b.Orders))
		}
		bal := OpenBalance
		for j, h := range b.Holdings {
			o := b.Orders[j]
			if h.HoldingID != int64(i*3+j+1) || o.OrderID != h.HoldingID || o.HoldingID != h.HoldingID ||
				o.Quantity != h.Quantity || o.Price != h.PurchasePrice || o.Symbol != h.Symbol ||
				o.Type != trade.Buy || o.Status != trade.StatusCompleted || o.Fee != trade.OrderFee {
				t.Fatalf("account %d holding %d: %+v / %+v", i, j, h, o)
			}
			if j > 0 && !o.OpenDate.After(b.Orders[j-1].OpenDate) {
				t.Fatalf("order dates are not increasing with ids")
			}
			if !o.CompletionDate.Before(Epoch) || o.CompletionDate.Before(b.Account.CreationDate) {
				t.Fatalf("order date %v outside the account's life", o.CompletionDate)
			}
			bal -= o.Total()
		}
		if b.Account.Balance != bal {
			t.Fatalf("balance %s, want %s", b.Account.Balance, bal)
		}
	}
	for i := 0; i < spec.Quotes; i++ {
		q := g.Quote(i)
		if q.Symbol != Symbol(i) || q.CompanyName != "S:"+itoa(i)+" Incorporated" || q.Open < 100 || q.Open > 20000 ||
			q.Change != q.Price-q.Open || q.Low > q.Price || q.High < q.Price || q.Low > q.Open || q.High < q.Open {
			t.Fatalf("quote %d: %+v", i, q)
		}
	}
}

func itoa(i int) string { return Symbol(i)[2:] }

func TestValidate(t *testing.T) {
	if err := DefaultSpec().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []func(*Spec){
		func(s *Spec) { s.Accounts = 0 },
		func(s *Spec) { s.Quotes = -1 },
		func(s *Spec) { s.Holdings = MaxHoldings + 1 },
		func(s *Spec) { s.HashCost = 99 },
	} {
		s := DefaultSpec()
		f(&s)
		if s.Validate() == nil {
			t.Errorf("spec %v accepted", s)
		}
	}
	if got := DefaultSpec().Rows(); got != 500_000*11+100_000 {
		t.Errorf("Rows = %d", got)
	}
}
