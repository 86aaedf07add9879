package remote_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/testing/racetest"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/remote"
	"github.com/tradebench/tradebench/trade/remote/clientopt"
	"github.com/tradebench/tradebench/trade/remote/contracttest"
	"github.com/tradebench/tradebench/trade/remote/host"
	"github.com/tradebench/tradebench/trade/remote/internal/testenv"
)

// startHost serves svc on loopback over every transport.
func startHost(t testing.TB, svc trade.Service) *host.Host {
	t.Helper()
	h, err := host.Start(context.Background(), svc, host.Config{HTTPListen: "127.0.0.1:0", GRPCListen: "127.0.0.1:0"})
	if err != nil {
		t.Fatalf("host.Start: %v", err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func dial(t testing.TB, h *host.Host, access string, opts remote.Options) remote.Client {
	t.Helper()
	addr := h.HTTPAddr()
	if access == remote.GRPC {
		addr = h.GRPCAddr()
	}
	c, err := remote.Dial(access, addr, opts)
	if err != nil {
		t.Fatalf("Dial(%s, %s): %v", access, addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

var transports = []string{remote.SOAP, remote.REST, remote.GRPC}

// TestContract runs the same contract suite against the in-process service and against each
// remote client talking to a real host over loopback TCP, all on one real SQLite database.
func TestContract(t *testing.T) {
	svc := testenv.Service(t)
	h := startHost(t, svc)
	env := func(s trade.Service, p trade.OrderProcessor) contracttest.Env {
		return contracttest.Env{Service: s, Processor: p, Symbols: testenv.Symbols, User: testenv.User, Password: testenv.Password,
			LoginMaxFailures: testenv.LoginMaxFailures}
	}
	t.Run(remote.InProcess, func(t *testing.T) {
		// the remote clients below run the same suite through the host's and the clients'
		// goroutines, which is what the race detector is for
		racetest.SkipSerial(t, "the contract suite's calls one after another into the in-process service, which starts no goroutine")
		contracttest.Run(t, env(svc, svc))
	})
	for _, access := range transports {
		t.Run(access, func(t *testing.T) {
			c := dial(t, h, access, remote.Options{})
			e := env(c, c)
			e.NoRetryAfter = access == remote.SOAP
			contracttest.Run(t, e)
		})
	}
}

// utc normalises every time.Time in v (a pointer) to UTC, so values from different
// transports compare with reflect.DeepEqual on the instant, not the location pointer.
func utc(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			utc(v.Elem())
		}
	case reflect.Struct:
		if t, ok := v.Interface().(time.Time); ok {
			v.Set(reflect.ValueOf(t.UTC()))
			return
		}
		for i := range v.NumField() {
			utc(v.Field(i))
		}
	case reflect.Slice:
		for i := range v.Len() {
			utc(v.Index(i))
		}
	}
}

// TestSameAnswers checks every field crosses each transport unchanged: a read through the
// client equals the same read in process, and a failing call gives the identical *trade.Error.
func TestSameAnswers(t *testing.T) {
	svc := testenv.Service(t)
	h := startHost(t, svc)
	ctx := context.Background()
	// A user with a sold order, an open holding and a profile with awkward text.
	r := trade.RegisterRequest{UserID: "same:1", Password: "p", FullName: "Tab\there & <b>\"quoted\"</b>", Address: "line1\r\nline2 ✓ 東京",
		Email: "x@example.com", CreditCard: "", OpenBalance: trade.Money(98765432)}
	if _, err := svc.Register(ctx, r); err != nil {
		t.Fatal(err)
	}
	b, err := svc.Buy(ctx, r.UserID, testenv.Symbols[0], 10)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Buy(ctx, r.UserID, testenv.Symbols[1], 3); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Sell(ctx, r.UserID, b.HoldingID, 4); err != nil {
		t.Fatal(err)
	}

	type call struct {
		name string
		f    func(s trade.Service) (any, error)
	}
	reads := []call{
		{"GetAccountData", func(s trade.Service) (any, error) { return s.GetAccountData(ctx, r.UserID) }},
		{"GetAccountData loaded", func(s trade.Service) (any, error) { return s.GetAccountData(ctx, testenv.User) }},
		{"GetAccountProfileData", func(s trade.Service) (any, error) { return s.GetAccountProfileData(ctx, r.UserID) }},
		{"GetHoldings", func(s trade.Service) (any, error) { return s.GetHoldings(ctx, r.UserID) }},
		{"GetHoldings loaded", func(s trade.Service) (any, error) { return s.GetHoldings(ctx, testenv.User) }},
		{"GetHolding", func(s trade.Service) (any, error) { return s.GetHolding(ctx, r.UserID, b.HoldingID) }},
		{"GetOrders", func(s trade.Service) (any, error) { return s.GetOrders(ctx, r.UserID, 0) }},
		{"GetOrders loaded", func(s trade.Service) (any, error) { return s.GetOrders(ctx, testenv.User, 2) }},
		{"GetQuote", func(s trade.Service) (any, error) { return s.GetQuote(ctx, testenv.Symbols[0]) }},
		{"GetQuotes", func(s trade.Service) (any, error) { return s.GetQuotes(ctx, testenv.Symbols) }},
		{"GetMarketSummary", func(s trade.Service) (any, error) {
			m, err := s.GetMarketSummary(ctx)
			if err == nil && m.Date.IsZero() {
				return nil, errors.New("market summary without a date")
			}
			m.Date = time.Time{} // computed per call (no cache here)
			return m, err
		}},
		// failures
		{"wrong password", func(s trade.Service) (any, error) { return s.Login(ctx, r.UserID, "nope") }},
		{"unknown user", func(s trade.Service) (any, error) { return s.GetAccountData(ctx, "nobody") }},
		{"unknown symbol", func(s trade.Service) (any, error) { return s.GetQuote(ctx, "zz:9") }},
		{"unknown holding", func(s trade.Service) (any, error) { return s.GetHolding(ctx, r.UserID, 1<<40) }},
		{"other user's holding", func(s trade.Service) (any, error) { return s.GetHolding(ctx, testenv.User, b.HoldingID) }},
		{"other user's sell", func(s trade.Service) (any, error) { return s.Sell(ctx, testenv.User, b.HoldingID, 1) }},
		{"duplicate register", func(s trade.Service) (any, error) { return s.Register(ctx, r) }},
		{"invalid quantity", func(s trade.Service) (any, error) { return s.Buy(ctx, r.UserID, testenv.Symbols[0], -5) }},
		{"too many symbols", func(s trade.Service) (any, error) { return s.GetQuotes(ctx, make([]string, 101)) }},
	}
	for _, access := range transports {
		t.Run(access, func(t *testing.T) {
			c := dial(t, h, access, remote.Options{})
			for _, rd := range reads {
				want, werr := rd.f(svc)
				got, gerr := rd.f(c)
				if (werr == nil) != (gerr == nil) {
					t.Errorf("%s: in-process error %v, %s error %v", rd.name, werr, access, gerr)
					continue
				}
				if werr != nil {
					wd, gd := trade.AsError(werr), trade.AsError(gerr)
					if wd == nil || gd == nil || *wd != *gd {
						t.Errorf("%s: in-process error %#v, %s error %#v (%v)", rd.name, wd, access, gd, gerr)
					}
					continue
				}
				wv, gv := reflect.New(reflect.TypeOf(want)), reflect.New(reflect.TypeOf(got))
				wv.Elem().Set(reflect.ValueOf(want))
				gv.Elem().Set(reflect.ValueOf(got))
				utc(wv)
				utc(gv)
				if !reflect.DeepEqual(wv.Elem().Interface(), gv.Elem().Interface()) {
					t.Errorf("%s over %s differs from in-process:\n got %+v\nwant %+v", rd.name, access, gv.Elem().Interface(), wv.Elem().Interface())
				}
			}
		})
	}
}

// TestHostGone: a client whose host went away gets an error from every call, promptly (a
// refused connection, not the call timeout), and works again once a host is back.
func TestHostGone(t *testing.T) {
	svc := testenv.Service(t)
	for _, access := range transports {
		t.Run(access, func(t *testing.T) {
			h, err := host.Start(context.Background(), svc, host.Config{HTTPListen: "127.0.0.1:0", GRPCListen: "127.0.0.1:0"})
			if err != nil {
				t.Fatal(err)
			}
			c := dial(t, h, access, remote.Options{Timeout: 20 * time.Second})
			if _, err := c.GetQuote(context.Background(), testenv.Symbols[0]); err != nil {
				t.Fatalf("GetQuote while the host is up: %v", err)
			}
			if err := h.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			for i := range 3 {
				_, err := c.GetQuote(context.Background(), testenv.Symbols[0])
				if err == nil {
					t.Fatalf("call %d after the host closed succeeded", i)
				}
				if errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("call %d after the host closed waited for the call timeout instead of failing: %v", i, err)
				}
				if trade.AsError(err) != nil {
					t.Fatalf("a lost host must not look like a domain error: %v", err)
				}
			}
		})
	}
}

// TestTimeout: a call that outlives the client's timeout ends with a deadline error.
func TestTimeout(t *testing.T) {
	svc := &slowService{Service: testenv.Service(t), delay: 2 * time.Second}
	h := startHost(t, svc)
	for _, access := range transports {
		t.Run(access, func(t *testing.T) {
			c := dial(t, h, access, remote.Options{Timeout: 100 * time.Millisecond})
			_, err := c.GetQuote(context.Background(), testenv.Symbols[0])
			if err == nil || trade.AsError(err) != nil {
				t.Fatalf("GetQuote on a host slower than the timeout: %v, want a timeout error", err)
			}
			if !errors.Is(err, context.DeadlineExceeded) && !strings.Contains(err.Error(), "Timeout") {
				t.Errorf("the error does not say the call timed out: %v", err)
			}
		})
	}
}

// slowService delays GetQuote (until the caller gives up) to exercise client timeouts.
type slowService struct {
	trade.Service
	delay time.Duration
}

func (s *slowService) GetQuote(ctx context.Context, sym string) (trade.Quote, error) {
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return trade.Quote{}, ctx.Err()
	}
	return s.Service.GetQuote(ctx, sym)
}

func TestDial(t *testing.T) {
	for _, tc := range []struct{ access, addr string }{
		{"carrier-pigeon", "127.0.0.1:1"},
		{remote.InProcess, ""},
		{remote.SOAP, ""},
		{remote.REST, "ftp://x"},
		{remote.GRPC, "no-port"},
	} {
		if c, err := remote.Dial(tc.access, tc.addr, remote.Options{}); err == nil {
			c.Close()
			t.Errorf("Dial(%q, %q) succeeded, want an error", tc.access, tc.addr)
		}
	}
	s := remote.Describe(remote.REST, "h:1", remote.Options{})
	if s.MaxConnsPerHost != clientopt.DefaultMaxConnsPerHost || s.Timeout != clientopt.DefaultTimeout.String() {
		t.Errorf("Describe defaults: %+v", s)
	}
}
