package server

import (
	"context"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/orders"
	"github.com/tradebench/tradebench/trade/store"
)

// TestSellBelowFeeCannotOverdraw: a user registered with $30 buys 1 share at $1.01 and sells
// it; the sale's proceeds are below the $24.95 fee, so unchecked the balance would go to
// −$19.99: the sell page answers 422 with the numbers, nothing changes, and the audit
// passes — in all five modes, through the monolith's pages.
// Mutant checked by hand: checkFunds returns nil for a Sell → "sell below the fee: 200".
func TestSellBelowFeeCannotOverdraw(t *testing.T) {
	for _, mode := range orders.Modes {
		t.Run(string(mode), func(t *testing.T) {
			dir := t.TempDir()
			cfg := DefaultConfig()
			cfg.DB, cfg.Listen = "sqlite:"+filepath.Join(dir, "serve.db"), "127.0.0.1:0"
			cfg.LoadIfEmpty, cfg.Logger = smallSpec(5, 5), slog.New(slog.DiscardHandler)
			cfg.Orders.Mode, cfg.Orders.WorkDir = mode, dir
			s, err := Start(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			setPrice(t, s.Store(), "s:1", trade.Cents(101))
			if _, err := s.Service().Register(ctx, trade.RegisterRequest{UserID: "poor", Password: "pw", FullName: "P", Address: "A",
				Email: "p@example.com", CreditCard: "1", OpenBalance: trade.Cents(3000)}); err != nil {
				t.Fatal(err)
			}
			c := newClient()
			get(t, c, s.URL()+"/daytrader/app?action=login&uid=poor&passwd=pw")
			code, body := get(t, c, s.URL()+"/daytrader/app?action=buy&symbol=s:1&quantity=1")
			m := orderRe.FindStringSubmatch(body)
			if code != 200 || m == nil {
				t.Fatalf("buy: %d\n%s", code, body)
			}
			id, _ := strconv.ParseInt(m[1], 10, 64)
			waitClosed(t, s.Store(), s.Service(), "poor", []int64{id})
			before, err := s.Service().GetAccountData(ctx, "poor")
			if err != nil {
				t.Fatal(err)
			}
			hs, err := s.Service().GetHoldings(ctx, "poor")
			if err != nil || len(hs) != 1 {
				t.Fatalf("holdings %v, %v", hs, err)
			}
			code, body = get(t, c, s.URL()+"/daytrader/app?action=sell&holdingID="+strconv.FormatInt(hs[0].HoldingID, 10))
			if code != 422 || !strings.Contains(body, "do not cover the $24.95 fee") {
				t.Fatalf("sell below the fee: %d\n%s", code, body)
			}
			after, err := s.Service().GetAccountData(ctx, "poor")
			if err != nil {
				t.Fatal(err)
			}
			if after.Balance != before.Balance || after.Balance < 0 {
				t.Fatalf("a refused sell moved the balance %s -> %s", before.Balance, after.Balance)
			}
			auditPasses(t, s)
		})
	}
}

func setPrice(t *testing.T, st store.Store, sym string, p trade.Money) {
	t.Helper()
	ctx := context.Background()
	err := st.Update(ctx, func(tx store.Tx) error {
		q, err := tx.LockQuote(ctx, sym)
		if err != nil {
			return err
		}
		q.Price, q.Low, q.High, q.Change = p, p, p, p-q.Open
		return tx.UpdateQuote(ctx, q)
	})
	if err != nil {
		t.Fatal(err)
	}
}
