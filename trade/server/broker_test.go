package server

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/natsx"
	"github.com/tradebench/tradebench/internal/testing/syncbuf"
	"github.com/tradebench/tradebench/trade/orders"
	"github.com/tradebench/tradebench/trade/stream"
)

// TestOrderBrokerRefusesStrangersAndCountsGarbage: serve's embedded broker must not take anyone
// who reaches its port (a fake quote published on trade.quotes.s:1 would reach every SSE
// client), nor log every garbage message (20,000 would write 20,000 ERROR lines): a
// client without the broker's token cannot connect; and garbage from one that has it (a bug
// in another tier) is counted in tradebench_malformed_messages_total and logged once in 1000.
// Mutants checked by hand: natsx.Start without Authorization → "connected without the token";
// dropMalformed logging every message → "2000 garbage messages wrote 2000 log lines".
func TestOrderBrokerRefusesStrangersAndCountsGarbage(t *testing.T) {
	var logs syncbuf.Buffer
	cfg := DefaultConfig()
	cfg.DB, cfg.Listen = "sqlite:"+filepath.Join(t.TempDir(), "serve.db"), "127.0.0.1:0"
	cfg.LoadIfEmpty, cfg.Logger = smallSpec(5, 5), slog.New(slog.NewTextHandler(&logs, nil))
	cfg.Orders.Mode, cfg.Orders.WorkDir = orders.AsyncVolatile, t.TempDir()
	s, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	url := s.Orders().NATSURL
	for _, tok := range []string{"", "wrong-token-0123456789abcdef"} {
		if nc, err := natsx.Connect(url, natsx.ConnectConfig{Name: "rogue", Token: tok}); err == nil {
			nc.Close()
			t.Fatalf("connected without the token (%q)", tok)
		}
	}

	const n = 2000
	before := strings.Count(logs.String(), "\n")
	nc, err := natsx.Connect(url, natsx.ConnectConfig{Name: "buggy tier", Token: s.Orders().NATSToken})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	for range n {
		nc.Publish(orders.VolatileSubject, []byte("garbage"))
		nc.Publish(stream.SubjectPrefix+"s:1", []byte(`{"price":"0.01"}`)) // no symbol: not a quote of s:1
	}
	nc.Flush()
	deadline := time.Now().Add(20 * time.Second)
	for {
		o, _ := s.metrics.Sum("tradebench_malformed_messages_total", map[string]string{"subjects": "orders"})
		q, _ := s.metrics.Sum("tradebench_malformed_messages_total", map[string]string{"subjects": "quotes"})
		if o == n && q == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("malformed messages counted: orders %v, quotes %v; want %d each", o, q, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if lines := strings.Count(logs.String(), "\n") - before; lines > 10 {
		t.Fatalf("%d garbage messages wrote %d log lines", 2*n, lines)
	}
}
