package orders_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/orders"
	"github.com/tradebench/tradebench/trade/remote/rest"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
	"github.com/tradebench/tradebench/trade/store/storetest"
)

// TestProcessorHealthzIsOpen: the order processor's REST /healthz is open for load balancers,
// as the docs and the services host have it: it answers 200 without the token; every other
// path still wants it.
// Mutant checked by hand: RequireHTTP without "/healthz" open → "/healthz without the token: 401".
func TestProcessorHealthzIsOpen(t *testing.T) {
	st := loaded(t, storetest.SQLiteDSN(t))
	p, err := orders.StartProcessor(context.Background(), orders.Config{Mode: orders.AsyncHTTP, Concurrency: 1, Batch: 1,
		Auth: svcauth.Client{Token: "processor-test-token-0123456789"}}, business.New(st, business.Options{Seed: 1}), "127.0.0.1:0", "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for path, want := range map[string]int{"/healthz": 200, rest.Prefix + "quotes/s:1": 401} {
		resp, err := http.Get("http://" + p.HTTPAddr + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%s without the token: %d, want %d", path, resp.StatusCode, want)
		}
	}
}
