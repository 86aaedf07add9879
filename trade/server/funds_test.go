package server

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/testing/pgtest"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/orders"
	"github.com/tradebench/tradebench/trade/store"
)

// TestBuyBeyondBalanceRefused: a buy of 1,000,000 shares costs more than the balance (unchecked,
// it would take it to −$105 M and answer 200): the page answers 422 with the numbers, and
// nothing changes.
func TestBuyBeyondBalanceRefused(t *testing.T) {
	s := startTest(t, 10, 10)
	ctx := context.Background()
	c := newClient()
	get(t, c, s.URL()+"/daytrader/app?action=login&uid=uid:1&passwd=xxx")
	before, err := s.Service().GetAccountData(ctx, "uid:1")
	if err != nil {
		t.Fatal(err)
	}
	code, body := get(t, c, s.URL()+"/daytrader/app?action=buy&symbol=s:1&quantity=1000000")
	if code != 422 || !strings.Contains(body, "insufficient funds: balance $"+before.Balance.String()+", order costs $") {
		t.Fatalf("buy of a million shares: %d\n%s", code, body)
	}
	after, err := s.Service().GetAccountData(ctx, "uid:1")
	if err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Fatalf("a refused buy changed the account: %+v -> %+v", before, after)
	}
	auditPasses(t, s)
}

// TestConcurrentBuysCannotOverdraw: 20 clients buy one share at once on one account whose cash
// covers exactly 5 of them. Exactly 5 orders are filled, the rest are refused (sync) or
// cancelled (async-durable: the order processor finds the money gone), the balance stays at
// or above zero and the audit passes, on SQLite and PostgreSQL. The async mode's
// completion-time funds check is reached only where the order processor completes orders while
// others are still being placed, which in practice is PostgreSQL alone (on SQLite the placements
// serialise and the placing check refuses); trade/business's TestAsyncCompletionRechecksFunds
// checks it directly on both databases.
//
// Why exactly 5: the share costs $1.00 and each filled buy moves its price by at most ±10%, so
// with at most 5 moves a buy costs between $24.95 + $0.59 and $24.95 + $1.62. An opening
// balance of 5 × $26.57 covers 5 of the dearest and not 6 of the cheapest.
func TestConcurrentBuysCannotOverdraw(t *testing.T) {
	for _, db := range []string{"sqlite", "postgres"} {
		for _, mode := range []orders.Mode{orders.Sync, orders.AsyncDurable} {
			t.Run(db+"/"+string(mode), func(t *testing.T) {
				if db == "postgres" && testing.Short() {
					t.Skip("PostgreSQL")
				}
				cfg := DefaultConfig()
				cfg.DB = "sqlite:" + filepath.Join(t.TempDir(), "funds.db")
				if db == "postgres" {
					cfg.DB = pgtest.DSN(t)
				}
				cfg.Listen, cfg.LoadIfEmpty, cfg.Logger = "127.0.0.1:0", smallSpec(10, 10), slog.New(slog.DiscardHandler)
				cfg.Orders.Mode, cfg.Orders.WorkDir = mode, t.TempDir()
				s, err := Start(context.Background(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				concurrentBuys(t, s)
			})
		}
	}
}

func concurrentBuys(t *testing.T, s *Server) {
	ctx := context.Background()
	const sym, clients, affordable = "s:3", 20, 5
	err := s.Store().Update(ctx, func(tx store.Tx) error {
		q, err := tx.LockQuote(ctx, sym)
		if err != nil {
			return err
		}
		q.Price, q.Low, q.High, q.Change = trade.Cents(100), trade.Cents(100), trade.Cents(100), q.Open-trade.Cents(100)
		return tx.UpdateQuote(ctx, q)
	})
	if err != nil {
		t.Fatal(err)
	}
	uid := "funds"
	open := trade.Money(affordable) * (trade.OrderFee + trade.Cents(162))
	if _, err := s.Service().Register(ctx, trade.RegisterRequest{UserID: uid, Password: "pw", FullName: "F", Address: "A",
		Email: "f@example.com", CreditCard: "1", OpenBalance: open}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	codes := make([]int, clients)
	bodies := make([]string, clients)
	for i := range clients {
		c := newClient()
		if code, body := get(t, c, s.URL()+"/daytrader/app?action=login&uid="+uid+"&passwd=pw"); code != 200 || !strings.Contains(body, "Welcome") {
			t.Fatalf("login %d: %d", i, code)
		}
		wg.Go(func() {
			codes[i], bodies[i] = get(t, c, s.URL()+"/daytrader/app?action=buy&symbol="+sym+"&quantity=1")
		})
	}
	wg.Wait()
	placed := 0
	for i, code := range codes {
		switch {
		case code == 200:
			placed++
		case code == 422 && strings.Contains(bodies[i], "insufficient funds: balance $"):
		default:
			t.Fatalf("buy %d: %d\n%s", i, code, bodies[i])
		}
	}
	acct, err := s.Service().GetAccountData(ctx, uid)
	if err != nil {
		t.Fatal(err)
	}
	// wait for the processor to finish every placed order, then count
	var filled, cancelled int
	deadline := time.Now().Add(30 * time.Second)
	for {
		os, err := s.Store().Orders(ctx, acct.AccountID, 100)
		if err != nil {
			t.Fatal(err)
		}
		filled, cancelled = 0, 0
		final := true
		for _, o := range os {
			switch {
			case o.Status == trade.StatusCancelled:
				cancelled++
			case o.Status.Final():
				filled++
			default:
				final = false
			}
		}
		if final && len(os) == placed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("orders not final after 30 s: %d placed, %d listed", placed, len(os))
		}
		time.Sleep(20 * time.Millisecond)
	}
	acct, err = s.Service().GetAccountData(ctx, uid)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d buys: %d placed, %d filled, %d cancelled, %d refused; balance %s of %s", clients, placed, filled, cancelled, clients-placed,
		acct.Balance, open)
	if filled != affordable || acct.Balance < 0 {
		t.Fatalf("%d orders filled, balance %s: want exactly %d and a balance ≥ 0", filled, acct.Balance, affordable)
	}
	if s.cfg.Orders.Mode == orders.Sync && cancelled != 0 {
		t.Fatalf("sync mode cancelled %d orders: a sync buy is checked before it is placed", cancelled)
	}
	auditPasses(t, s)
}
