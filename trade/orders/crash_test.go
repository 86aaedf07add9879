package orders_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/pgtest"
	"github.com/tradebench/tradebench/trade/audit"
	"github.com/tradebench/tradebench/trade/inprocess"
	"github.com/tradebench/tradebench/trade/orders"
	"github.com/tradebench/tradebench/trade/store"
)

// The crash test runs the services tier and the order processor as separate processes: this
// test binary re-executed with childEnv naming the role, against one PostgreSQL database and a
// NATS server with JetStream (file storage) running in the test process.
const childEnv = "TRADEBENCH_ORDERS_CHILD"

// child runs one role until killed: "services" places orders for TB_LOAD_FOR then idles (its
// relay keeps running), "processor" completes orders.
func child(role string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	st, err := store.Open(ctx, os.Getenv("TB_DSN"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer st.Close()
	cfg := orders.Config{Mode: orders.Mode(os.Getenv("TB_MODE")), NATS: os.Getenv("TB_NATS"), Concurrency: 8, Batch: 32}
	switch role {
	case "processor":
		run, err := orders.StartProcessor(ctx, cfg, inprocess.New(st, inprocess.Options{}), "", "")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		<-ctx.Done()
		run.Close()
	case "services":
		run, svc, err := orders.StartServices(ctx, cfg, func(d inprocess.OrderDispatcher) *inprocess.Service {
			return inprocess.New(st, inprocess.Options{Dispatch: d})
		}, false)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		until, _ := time.Parse(time.RFC3339Nano, os.Getenv("TB_LOAD_UNTIL"))
		for w := range 4 {
			go countingLoad(until, svc, uint64(w)+uint64(time.Now().UnixNano()), new(atomic.Int64))
		}
		<-ctx.Done()
		run.Close()
	}
	return 0
}

// countingLoad places buys and sells over 20 users until the time until, counting the orders
// placed and ignoring the races a load loses (a holding sold by another worker first). Calls
// are not cancelled: a cancelled commit may succeed unseen, which is not what is measured.
func countingLoad(until time.Time, svc *inprocess.Service, seed uint64, placed *atomic.Int64) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(seed, 9))
	for time.Now().Before(until) {
		u := "uid:" + strconv.Itoa(r.IntN(20))
		if r.IntN(2) == 0 {
			if _, err := svc.Buy(ctx, u, "s:"+strconv.Itoa(r.IntN(20)), 1+r.Int64N(20)); err == nil {
				placed.Add(1)
			}
			continue
		}
		hs, err := svc.GetHoldings(ctx, u)
		if err == nil && len(hs) > 0 {
			h := hs[r.IntN(len(hs))]
			if _, err := svc.Sell(ctx, u, h.HoldingID, 0); err == nil {
				placed.Add(1)
			}
		}
	}
}

type procs struct {
	t   *testing.T
	env []string
}

func (p procs) start(role string) *exec.Cmd {
	p.t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), p.env...), childEnv+"="+role)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

func kill(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
}

// crash runs the load for loadFor while SIGKILLing and restarting the processor every
// killEvery, and the services process once, then waits for the queue to drain (at most
// drainFor) and returns the orders placed since the load and those still open.
func crash(t *testing.T, mode orders.Mode, loadFor, drainFor time.Duration) (st store.Store, placed, open int) {
	dsn := pgtest.DSN(t)
	st = loaded(t, dsn)
	e, err := orders.StartEmbedded(t.TempDir(), -1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Shutdown)
	li, _ := st.Loaded(context.Background())
	p := procs{t: t, env: []string{"TB_DSN=" + dsn, "TB_NATS=" + e.URL(), "TB_MODE=" + string(mode),
		"TB_LOAD_UNTIL=" + time.Now().Add(loadFor).Format(time.RFC3339Nano)}}
	services := p.start("services")
	proc := p.start("processor")
	end := time.Now().Add(loadFor)
	kills := 0
	for i := 0; time.Now().Before(end); i++ {
		time.Sleep(loadFor / 5)
		kill(t, proc)
		kills++
		if i == 1 { // once in between: the services process too, mid-publish
			kill(t, services)
			services = p.start("services")
		}
		time.Sleep(200 * time.Millisecond)
		proc = p.start("processor")
	}
	_ = services
	t.Logf("%s: processor SIGKILLed and restarted %d times, the services process once", mode, kills)
	// Drain: wait until nothing is open, or (volatile) nothing moves any more.
	deadline := time.Now().Add(drainFor)
	last, still := -1, 0
	for time.Now().Before(deadline) {
		os, err := st.OpenOrders(context.Background(), li.MaxOrderID, 100000)
		if err != nil {
			t.Fatal(err)
		}
		open = len(os)
		if open == 0 {
			break
		}
		if open == last {
			still++
		} else {
			still = 0
		}
		last = open
		if mode == orders.AsyncVolatile && still > 20 { // 2s without progress: the rest is lost
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	placed = countPlaced(t, st, li.MaxOrderID)
	return st, placed, open
}

func countPlaced(t *testing.T, st store.Store, after int64) int {
	n := 0
	for u := range 20 {
		a, err := st.Account(context.Background(), "uid:"+strconv.Itoa(u))
		if err != nil {
			t.Fatal(err)
		}
		os, err := st.Orders(context.Background(), a.AccountID, 100000)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range os {
			if o.OrderID > after {
				n++
			}
		}
	}
	return n
}

// TestCrash: in async-durable mode nothing is lost or applied twice whatever is killed; in
// async-volatile mode the orders in flight are lost (reported), and nothing is applied twice.
func TestCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test: real processes killed under load")
	}
	for _, tc := range []struct {
		mode  orders.Mode
		drain time.Duration
	}{{orders.AsyncDurable, 30 * time.Second}, {orders.AsyncVolatile, 15 * time.Second}} {
		t.Run(string(tc.mode), func(t *testing.T) {
			st, placed, open := crash(t, tc.mode, 8*time.Second, tc.drain)
			t.Logf("%s: %d orders placed under load with crashes; %d lost (still open)", tc.mode, placed, open)
			if placed == 0 {
				t.Fatal("the load placed no orders")
			}
			if tc.mode == orders.AsyncDurable && open != 0 {
				t.Fatalf("%d orders lost in async-durable mode", open)
			}
			// Durable: nothing open, nothing applied twice. Volatile: the lost orders stay open
			// (allowed here), and everything that completed was applied exactly once.
			sum, err := audit.Run(context.Background(), st, audit.Options{AllowOpen: tc.mode == orders.AsyncVolatile})
			if err != nil {
				t.Fatal(err)
			}
			if !sum.Passed {
				t.Fatalf("audit: %+v", sum.Violations)
			}
		})
	}
}
