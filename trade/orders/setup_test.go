package orders_test

import (
	"context"
	"testing"

	"github.com/tradebench/tradebench/internal/testing/natstest"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/orders"
	"github.com/tradebench/tradebench/trade/store/storetest"
)

// The services tier in async-durable mode accepts orders with no processor running; a
// processor started later (the orders role, through an external broker) completes them all.
func TestServicesWithoutProcessorThenProcessorRole(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st := loaded(t, dsn)
		e := natstest.Start(t, t.TempDir())
		cfg := orders.Config{Mode: orders.AsyncDurable, NATS: e.URL(), NATSToken: natstest.Token}
		web, svc, err := orders.StartServices(ctx, cfg, func(d business.OrderDispatcher) *business.Service {
			return business.New(st, business.Options{Dispatch: d, Seed: 1})
		}, false)
		if err != nil {
			t.Fatal(err)
		}
		defer web.Close()
		load(t, svc)
		open, err := st.OpenOrders(ctx, 0, 1)
		if err != nil || len(open) == 0 {
			t.Fatalf("with no processor running, orders should wait open: %v %v", open, err)
		}
		proc, err := orders.StartProcessor(ctx, orders.Config{Mode: orders.AsyncDurable, NATS: e.URL(), NATSToken: natstest.Token, Concurrency: 4,
			Batch: 8},
			business.New(st, business.Options{Seed: 2}), "127.0.0.1:0", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer proc.Close()
		waitFinal(t, st)
		wantAudit(t, st)
		if proc.HTTPAddr == "" || proc.GRPCAddr == "" {
			t.Fatalf("processor endpoints not served: %q %q", proc.HTTPAddr, proc.GRPCAddr)
		}
	})
}

// Every mode through StartServices in the monolith (local processor) completes orders.
func TestMonolithModes(t *testing.T) {
	for _, mode := range orders.Modes {
		t.Run(string(mode), func(t *testing.T) {
			st := loaded(t, storetest.SQLiteDSN(t))
			run, svc, err := orders.StartServices(context.Background(), orders.Config{Mode: mode, WorkDir: t.TempDir(), NATSToken: natstest.Token},
				func(d business.OrderDispatcher) *business.Service {
					return business.New(st, business.Options{Dispatch: d, Seed: 1})
				}, true)
			if err != nil {
				t.Fatal(err)
			}
			defer run.Close()
			if mode == orders.AsyncVolatile {
				waitSubscribed(t, natsConn(t, run.NATSURL))
			}
			o, err := svc.Buy(context.Background(), "uid:1", "s:1", 5)
			if err != nil {
				t.Fatal(err)
			}
			if want := mode == orders.Sync; (o.Status == trade.StatusClosed) != want {
				t.Fatalf("%s: buy returned %s", mode, o.Status)
			}
			waitFinal(t, st)
			if got := order(t, st, o.OrderID); got.Status != trade.StatusClosed {
				t.Fatalf("%s: order ended %s", mode, got.Status)
			}
			wantAudit(t, st)
		})
	}
}

func TestConfigErrorsNameTheFlag(t *testing.T) {
	for _, c := range []orders.Config{{Mode: "fast"}, {Mode: orders.Sync, NATS: "localhost:4222"}, {Mode: orders.Sync, Concurrency: -1},
		{Mode: orders.Sync, Batch: -1}} {
		err := c.Validate()
		if err == nil {
			t.Fatalf("%+v: no error", c)
		}
		t.Log(err)
	}
	_, _, err := orders.StartServices(context.Background(), orders.Config{Mode: orders.AsyncHTTP}, nil, false)
	if err == nil {
		t.Fatal("async-http without an order processor address in the web role: no error")
	}
}
