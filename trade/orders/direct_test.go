package orders_test

import (
	"net"
	"net/http/httptest"
	"testing"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/orders"
	"github.com/tradebench/tradebench/trade/remote/grpcapi"
	"github.com/tradebench/tradebench/trade/remote/rest"
	"github.com/tradebench/tradebench/trade/store"
	"github.com/tradebench/tradebench/trade/store/storetest"
)

// processorEndpoint serves an order processor over real TCP in the given transport and returns
// a client of it.
func processorEndpoint(t *testing.T, st store.Store, mode orders.Mode) trade.OrderProcessor {
	t.Helper()
	svc := business.New(st, business.Options{Seed: 5})
	p := &orders.Processor{Orders: svc}
	switch mode {
	case orders.AsyncHTTP:
		srv := httptest.NewServer(rest.NewHandler(svc, rest.HandlerOptions{Processor: p}))
		t.Cleanup(srv.Close)
		c, err := rest.NewClient(srv.URL, rest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	case orders.AsyncGRPC:
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := grpcapi.NewServer(svc, grpcapi.ServerOptions{Processor: p})
		go srv.Serve(ln)
		t.Cleanup(srv.Stop)
		c, err := grpcapi.NewClient(ln.Addr().String(), grpcapi.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	t.Fatalf("no endpoint for %s", mode)
	return nil
}

func TestDirectModes(t *testing.T) {
	for _, mode := range []orders.Mode{orders.AsyncHTTP, orders.AsyncGRPC} {
		t.Run(string(mode), func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, dsn string) {
				st := loaded(t, dsn)
				d := &orders.DirectDispatcher{Proc: processorEndpoint(t, st, mode), Concurrency: 8}
				svc := business.New(st, business.Options{Dispatch: d, Seed: 3})
				checkBuySell(t, st, svc)
				load(t, svc)
				d.Wait()
				waitFinal(t, st)
				wantAudit(t, st)
			})
		})
	}
}
