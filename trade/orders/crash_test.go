package orders_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/testing/natstest"
	"github.com/tradebench/tradebench/internal/testing/pgtest"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/audit"
	"github.com/tradebench/tradebench/trade/business"
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
	cfg := orders.Config{Mode: orders.Mode(os.Getenv("TB_MODE")), NATS: os.Getenv("TB_NATS"), NATSToken: natstest.Token, Concurrency: 8, Batch: 32}
	switch role {
	case "processor":
		run, err := orders.StartProcessor(ctx, cfg, business.New(st, business.Options{}), "", "")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		os.Stdout.WriteString(readyLine + "\n")
		<-ctx.Done()
		run.Close()
	case "services":
		run, svc, err := orders.StartServices(ctx, cfg, func(d business.OrderDispatcher) *business.Service {
			return business.New(st, business.Options{Dispatch: d})
		}, false)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		until, _ := time.Parse(time.RFC3339Nano, os.Getenv("TB_LOAD_UNTIL"))
		for w := range 4 {
			go ackingLoad(until, svc, uint64(w)+uint64(time.Now().UnixNano()), ack)
		}
		<-ctx.Done()
		run.Close()
	}
	return 0
}

// ackingLoad places buys and sells over 20 users until the time until, passing each order
// acknowledged to the client (the call returned it without error) to ack, and ignoring the races
// a load loses (a holding sold by another worker first). Calls are not cancelled: a cancelled
// commit may succeed unseen, which is not what is measured.
func ackingLoad(until time.Time, svc *business.Service, seed uint64, ack func(orderID int64)) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(seed, 9))
	for time.Now().Before(until) {
		u := "uid:" + strconv.Itoa(r.IntN(20))
		if r.IntN(2) == 0 {
			if o, err := svc.Buy(ctx, u, "s:"+strconv.Itoa(r.IntN(20)), 1+r.Int64N(20)); err == nil {
				ack(o.OrderID)
			}
			continue
		}
		hs, err := svc.GetHoldings(ctx, u)
		if err == nil && len(hs) > 0 {
			h := hs[r.IntN(len(hs))]
			if o, err := svc.Sell(ctx, u, h.HoldingID, 0); err == nil {
				ack(o.OrderID)
			}
		}
	}
}

// The children tell the test what happened on their standard output, one line per event: the
// processor "ready" once it takes orders, the services process "ack ID" for each order
// acknowledged to a client. Each line is one write of a few bytes to a pipe, which is atomic, so
// the lines of concurrent writers never mix and a SIGKILL loses at most acknowledgements not yet
// written (the order is then in the database unacknowledged, which the test allows).
const (
	readyLine = "ready"
	ackPrefix = "ack "
)

// ack writes one acknowledgement line.
func ack(orderID int64) {
	os.Stdout.Write(append(strconv.AppendInt([]byte(ackPrefix), orderID, 10), '\n'))
}

// events collects the children's lines.
type events struct {
	mu    sync.Mutex
	acked map[int64]int // order id -> times acknowledged
}

// lines is one child's standard output: it splits it into lines for ev and closes ready at the
// first "ready".
type lines struct {
	ev      *events
	partial []byte
	ready   chan struct{}
}

func (l *lines) Write(p []byte) (int, error) {
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(l.partial[:i])
		l.partial = l.partial[i+1:]
		switch {
		case line == readyLine:
			select {
			case <-l.ready:
			default:
				close(l.ready)
			}
		case strings.HasPrefix(line, ackPrefix):
			id, err := strconv.ParseInt(line[len(ackPrefix):], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("child wrote %q", line)
			}
			l.ev.mu.Lock()
			l.ev.acked[id]++
			l.ev.mu.Unlock()
		}
	}
}

type procs struct {
	t   *testing.T
	env []string
	ev  *events
}

// proc is a running child.
type proc struct {
	role   string
	cmd    *exec.Cmd
	ready  chan struct{} // closed when it says it is ready
	exited chan struct{} // closed when it has exited and its output is all read
}

// start starts a child in role.
func (p procs) start(role string) *proc {
	p.t.Helper()
	c := &proc{role: role, cmd: exec.Command(os.Args[0], "-test.run=^$"), ready: make(chan struct{}), exited: make(chan struct{})}
	c.cmd.Env = append(append(os.Environ(), p.env...), childEnv+"="+role)
	c.cmd.Stderr = os.Stderr
	c.cmd.Stdout = &lines{ev: p.ev, ready: c.ready} // Wait returns once it is all read
	if err := c.cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	go func() { _ = c.cmd.Wait(); close(c.exited) }()
	p.t.Cleanup(func() { _ = c.cmd.Process.Kill(); <-c.exited })
	return c
}

// waitReady waits for a child to say it is ready. The minute is only there so a child that
// hangs fails the test instead of hanging it; a healthy one is ready in well under a second even
// on a busy machine.
func (c *proc) waitReady(t *testing.T) {
	t.Helper()
	select {
	case <-c.ready:
	case <-c.exited:
		t.Fatalf("the %s process exited before it was ready", c.role)
	case <-time.After(time.Minute):
		t.Fatalf("the %s process did not become ready in a minute", c.role)
	}
}

// kill SIGKILLs the child and waits for it (one that has exited already is fine).
func (c *proc) kill(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Fatal(err)
	}
	<-c.exited
}

// outcome is what a crash run left.
type outcome struct {
	st     store.Store
	acked  map[int64]int               // orders acknowledged to the load's clients (times each)
	placed map[int64]trade.OrderStatus // orders in the database placed since the load began
	open   int                         // of those, still open after the drain
}

// crash runs the load for loadFor while SIGKILLing and restarting the processor a fifth of
// loadFor after each is ready, and the services process once, then waits for the queue to drain
// (at most drainFor) and returns what the load was told and what the database holds.
func crash(t *testing.T, mode orders.Mode, loadFor, drainFor time.Duration) outcome {
	dsn := pgtest.DSN(t)
	st := loaded(t, dsn)
	e := natstest.Start(t, t.TempDir())
	li, _ := st.Loaded(context.Background())
	ev := &events{acked: map[int64]int{}}
	p := procs{t: t, ev: ev, env: []string{"TB_DSN=" + dsn, "TB_NATS=" + e.URL(), "TB_MODE=" + string(mode),
		"TB_LOAD_UNTIL=" + time.Now().Add(loadFor).Format(time.RFC3339Nano)}}
	services := p.start("services")
	processor := p.start("processor")
	end := time.Now().Add(loadFor)
	kills := 0
	for i := 0; time.Now().Before(end); i++ {
		// each processor runs a fifth of the load after it is ready, so every one of them has
		// orders to complete however slowly the machine starts processes
		processor.waitReady(t)
		time.Sleep(loadFor / 5)
		processor.kill(t)
		kills++
		if i == 1 { // once in between: the services process too, mid-publish
			services.kill(t)
			services = p.start("services")
		}
		time.Sleep(200 * time.Millisecond)
		processor = p.start("processor")
	}
	t.Logf("%s: processor SIGKILLed and restarted %d times, the services process once", mode, kills)
	// Drain: wait until nothing is open, or (volatile) nothing moves any more.
	deadline := time.Now().Add(drainFor)
	last, still, open := -1, 0, 0
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
	// the services processes' output is complete once they have exited
	services.kill(t)
	ev.mu.Lock()
	defer ev.mu.Unlock()
	return outcome{st: st, acked: ev.acked, placed: placedOrders(t, st, li.MaxOrderID), open: open}
}

// placedOrders returns the status of every order of the load's 20 users above the id after.
func placedOrders(t *testing.T, st store.Store, after int64) map[int64]trade.OrderStatus {
	placed := map[int64]trade.OrderStatus{}
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
				placed[o.OrderID] = o.Status
			}
		}
	}
	return placed
}

// TestCrash: in async-durable mode nothing is lost or applied twice whatever is killed; in
// async-volatile mode the orders in flight are lost (left open, reported), and nothing is applied
// twice. What the load was told is checked against the database: every order acknowledged to a
// client is stored, in both modes; durable, each is closed exactly once (final — closed, or
// cancelled when another sell took its holding first — and the audit finds nothing applied
// twice); volatile, the processors completed orders between the kills, and every acknowledged
// order is completed or still open, never missing.
//
// Catches the mutant "the processor child exits at once" (checked by hand, both modes: "the
// processor process exited before it was ready"), and the subtler one "it exits as soon as it is
// ready" (both modes: "no order completed: the processors did nothing between the kills (29785
// placed)"); an order acknowledged but never stored would be "… acknowledged orders are not in
// the database".
func TestCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test: real processes killed under load")
	}
	for _, tc := range []struct {
		mode  orders.Mode
		drain time.Duration
	}{{orders.AsyncDurable, 30 * time.Second}, {orders.AsyncVolatile, 15 * time.Second}} {
		t.Run(string(tc.mode), func(t *testing.T) {
			o := crash(t, tc.mode, 8*time.Second, tc.drain)
			var completed, missing, notFinal, twice int
			for _, s := range o.placed {
				if s.Final() { // closed, or cancelled (a sell of a holding another sell took first)
					completed++
				}
			}
			for id, n := range o.acked {
				s, ok := o.placed[id]
				switch {
				case !ok:
					missing++
				case !s.Final():
					notFinal++
				}
				if n > 1 {
					twice++
				}
			}
			t.Logf("%s: %d orders acknowledged to clients, %d in the database, %d completed (closed or cancelled), %d lost (still open)",
				tc.mode, len(o.acked), len(o.placed), completed, o.open)
			switch {
			case len(o.acked) == 0:
				t.Fatal("the load was acknowledged no orders")
			case missing > 0:
				t.Fatalf("%d of %d acknowledged orders are not in the database", missing, len(o.acked))
			case twice > 0:
				t.Fatalf("%d order ids acknowledged twice", twice)
			case completed == 0:
				t.Fatalf("no order completed: the processors did nothing between the kills (%d placed)", len(o.placed))
			case tc.mode == orders.AsyncDurable && (notFinal > 0 || o.open != 0):
				t.Fatalf("%d of %d acknowledged orders not completed after the drain (%d open in all) in async-durable mode",
					notFinal, len(o.acked), o.open)
			}
			// Durable: nothing open, nothing applied twice. Volatile: the lost orders stay open
			// (allowed here), and everything that completed was applied exactly once.
			sum, err := audit.Run(context.Background(), o.st, audit.Options{AllowOpen: tc.mode == orders.AsyncVolatile})
			if err != nil {
				t.Fatal(err)
			}
			if !sum.Passed {
				t.Fatalf("audit: %+v", sum.Violations)
			}
		})
	}
}
