package access_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/testing/pgtest"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/access"
	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/internal/webtest"
	"github.com/tradebench/tradebench/trade/remote"
	"github.com/tradebench/tradebench/trade/remote/host"
	"github.com/tradebench/tradebench/trade/store"
	_ "github.com/tradebench/tradebench/trade/store/all"
	"github.com/tradebench/tradebench/trade/web"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// bed is a loaded database, the in-process service on it, and a services host in front of it.
// The web tier's in-process service is the same service counted (local), so a test sees which
// way every call went: in-process (local) or over a transport to the host (host.Calls).
type bed struct {
	spec  store.LoadSpec
	svc   *business.Service
	host  *host.Host
	local host.Calls
}

func newBed(t *testing.T, dsn string) *bed {
	t.Helper()
	svc, spec := webtest.Loaded(t, dsn)
	h, err := host.Start(context.Background(), svc, host.Config{HTTPListen: "127.0.0.1:0", GRPCListen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return &bed{spec: spec, svc: svc, host: h}
}

func (b *bed) cfg() access.Config {
	return access.Config{Local: b.local.Service(remote.InProcess, b.svc), HTTPAddr: b.host.HTTPAddr(), GRPCAddr: b.host.GRPCAddr()}
}

// calls is how many calls have gone each way so far, by access mode.
func (b *bed) calls() map[string]int64 {
	m := map[string]int64{remote.InProcess: b.local.Total(remote.InProcess)}
	for _, tr := range []string{remote.SOAP, remote.REST, remote.GRPC} {
		m[tr] = b.host.Calls().Total(tr)
	}
	return m
}

// wentOnly fails unless, between the counts before and after, calls went the way of mode and no
// other.
func (b *bed) wentOnly(t *testing.T, mode string, before, after map[string]int64) {
	t.Helper()
	for _, m := range remote.Accesses() {
		switch d := after[m] - before[m]; {
		case m == mode && d == 0:
			t.Errorf("in %s mode no call went %s (calls by way: before %v, after %v)", mode, m, before, after)
		case m != mode && d != 0:
			t.Errorf("in %s mode %d calls went %s (calls by way: before %v, after %v)", mode, d, m, before, after)
		}
	}
}

// The StockTrader page suite with the web tier in each access mode: the pages go through the
// mode's client and a real host over loopback TCP; the suite checks the database through the
// in-process service. The calls are counted on the way: in a remote mode every page call
// reaches the host over that transport and none goes in-process or over another transport.
// Catches the mutant "Switch.Set keeps calling the in-process service and only relabels the
// mode" (checked by hand: "in soap mode no call went soap …").
func TestPagesInEachAccessMode(t *testing.T) {
	for _, mode := range remote.Accesses() {
		t.Run(mode, func(t *testing.T) {
			b := newBed(t, "sqlite:"+filepath.Join(t.TempDir(), "web.db"))
			runPages(t, b, mode)
		})
	}
}

// The same over PostgreSQL, the 2007 paper's shared database, in the binary transport's mode.
func TestPagesGRPCPostgres(t *testing.T) {
	runPages(t, newBed(t, pgtest.DSN(t)), remote.GRPC)
}

func runPages(t *testing.T, b *bed, mode string) {
	sw, err := access.New(b.cfg(), mode)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sw.Close() })
	if sw.Mode() != mode {
		t.Fatalf("mode %q, want %q", sw.Mode(), mode)
	}
	before := b.calls()
	webtest.Run(t, webtest.Fixture{
		Service: sw, Truth: b.svc,
		Accounts: b.spec.Accounts, Quotes: b.spec.Quotes, Holdings: b.spec.Holdings, Password: dataset.Password,
		Options: web.Options{OrdersLimit: 100, Access: sw},
	})
	b.wentOnly(t, mode, before, b.calls())
	if mode != remote.InProcess {
		// the pages' main operations each crossed the transport
		for _, op := range []string{host.OpLogin, host.OpGetAccountData, host.OpGetHoldings, host.OpGetQuotes, host.OpBuy, host.OpSell,
			host.OpGetMarketSummary} {
			if b.host.Calls().Count(mode, op) == 0 {
				t.Errorf("no %s call reached the host over %s: counts %+v", op, mode, b.host.Calls().Counts())
			}
		}
	}
}

// Switching while calls run: every call succeeds on whichever implementation it started on,
// and after each switch a call goes the way the switch says: the services host counts the calls
// it receives per transport, and the in-process service is counted too. Catches the mutant
// "Switch.Set keeps calling the in-process service and only relabels the mode" (checked by
// hand: "after switching to soap, a call did not go soap …").
func TestSwitchUnderLoad(t *testing.T) {
	b := newBed(t, "sqlite:"+filepath.Join(t.TempDir(), "web.db"))
	sw, err := access.New(b.cfg(), remote.InProcess)
	if err != nil {
		t.Fatal(err)
	}
	defer sw.Close()
	ctx := context.Background()
	var calls, failed atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var firstErr atomic.Value
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := sw.GetQuote(ctx, dataset.Symbol(3)); err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err)
				}
				calls.Add(1)
			}
		})
	}
	for i := range 12 {
		mode := remote.Accesses()[i%4]
		if err := sw.Set(mode); err != nil {
			t.Fatalf("Set(%s): %v", mode, err)
		}
		// The load goroutines' calls may count on either side of a switch, so only this
		// goroutine's own call, made after Set returned, is sure to go the new way.
		before := b.calls()
		if _, err := sw.GetQuote(ctx, dataset.Symbol(4)); err != nil {
			t.Fatalf("a call after switching to %s: %v", mode, err)
		}
		if after := b.calls(); after[mode] == before[mode] {
			t.Fatalf("after switching to %s, a call did not go %s (calls by way: before %v, after %v)", mode, mode, before, after)
		}
		time.Sleep(25 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	// with the load stopped, every call goes the last switch's way, and only that way
	before := b.calls()
	for range 3 {
		if _, err := sw.GetQuote(ctx, dataset.Symbol(5)); err != nil {
			t.Fatal(err)
		}
	}
	b.wentOnly(t, remote.GRPC, before, b.calls())
	if failed.Load() > 0 {
		t.Fatalf("%d of %d calls failed across switches; first: %v", failed.Load(), calls.Load(), firstErr.Load())
	}
	if calls.Load() < 12 { // at least one per switch, even on a loaded machine under -race
		t.Fatalf("only %d calls in 300 ms", calls.Load())
	}
	if got := sw.Settings(); got.Access != remote.GRPC || got.Addr != b.host.GRPCAddr() {
		t.Fatalf("settings after the last switch: %+v", got)
	}
}

// A bad switch changes nothing; a web tier without a database cannot go in-process.
func TestSwitchRefusals(t *testing.T) {
	b := newBed(t, "sqlite:"+filepath.Join(t.TempDir(), "web.db"))
	sw, err := access.New(access.Config{HTTPAddr: b.host.HTTPAddr()}, remote.SOAP)
	if err != nil {
		t.Fatal(err)
	}
	defer sw.Close()
	for _, mode := range []string{remote.InProcess, remote.GRPC, "corba", ""} {
		if err := sw.Set(mode); err == nil {
			t.Errorf("Set(%q) succeeded", mode)
		}
		if sw.Mode() != remote.SOAP {
			t.Fatalf("a refused Set(%q) changed the mode to %q", mode, sw.Mode())
		}
	}
	if got := sw.Modes(); len(got) != 2 || got[0] != remote.SOAP || got[1] != remote.REST {
		t.Errorf("Modes() = %v, want [soap rest]", got)
	}
	if _, err := sw.GetQuote(context.Background(), dataset.Symbol(1)); err != nil {
		t.Fatal(err)
	}
	if _, err := access.New(access.Config{}, remote.InProcess); err == nil {
		t.Error("an in-process switch without a local service was built")
	}
}

// A lost host is trade.ErrUnavailable (the pages answer 503), promptly; domain errors still
// cross as themselves.
func TestUnavailable(t *testing.T) {
	b := newBed(t, "sqlite:"+filepath.Join(t.TempDir(), "web.db"))
	for _, mode := range []string{remote.SOAP, remote.REST, remote.GRPC} {
		t.Run(mode, func(t *testing.T) {
			h, err := host.Start(context.Background(), b.svc, host.Config{HTTPListen: "127.0.0.1:0", GRPCListen: "127.0.0.1:0"})
			if err != nil {
				t.Fatal(err)
			}
			sw, err := access.New(access.Config{HTTPAddr: h.HTTPAddr(), GRPCAddr: h.GRPCAddr(), Remote: remote.Options{Timeout: 5 * time.Second}},
				mode)
			if err != nil {
				t.Fatal(err)
			}
			defer sw.Close()
			ctx := context.Background()
			if _, err := sw.GetQuote(ctx, "s:nope"); !errors.Is(err, trade.ErrNotFound) || errors.Is(err, trade.ErrUnavailable) {
				t.Fatalf("unknown symbol: %v, want the domain error", err)
			}
			h.Close()
			start := time.Now()
			_, err = sw.GetQuote(ctx, dataset.Symbol(1))
			if !errors.Is(err, trade.ErrUnavailable) || trade.AsError(err) != nil {
				t.Fatalf("call to a closed host: %v, want ErrUnavailable", err)
			}
			if d := time.Since(start); d > 4*time.Second {
				t.Fatalf("the call to a closed host took %v: it waited for the timeout", d)
			}
		})
	}
}
