package orders_test

import (
	"context"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tradebench/tradebench/internal/testing/natstest"
	"github.com/tradebench/tradebench/internal/testing/pgtest"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/audit"
	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/orders"
	"github.com/tradebench/tradebench/trade/store"
	"github.com/tradebench/tradebench/trade/store/storetest"
)

func TestMain(m *testing.M) {
	if role := os.Getenv(childEnv); role != "" {
		os.Exit(child(role))
	}
	pgtest.Main(m)
}

// broker is a real NATS server with JetStream in this process and a connection to it.
func broker(t testing.TB) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	e := natstest.Start(t, t.TempDir())
	nc := natstest.Connect(t, e.URL())
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := orders.EnsureStream(context.Background(), js); err != nil {
		t.Fatal(err)
	}
	return nc, js
}

func loaded(t testing.TB, dsn string) store.Store {
	s := dataset.DefaultSpec()
	s.Accounts, s.Quotes, s.Seed = 50, 20, 7
	return storetest.Loaded(t, dsn, s)
}

// runProcessor runs a processor on the transports given until the test ends.
func runProcessor(t *testing.T, st store.Store, nc *nats.Conn, js jetstream.JetStream) *orders.Processor {
	t.Helper()
	p := &orders.Processor{Orders: business.New(st, business.Options{Seed: 5}), Concurrency: 4, Batch: 16}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx, nc, js) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("processor: %v", err)
		}
	})
	return p
}

// waitFinal waits until no order is open: the queue has drained.
func waitFinal(t testing.TB, st store.Store) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		open, err := st.OpenOrders(context.Background(), 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(open) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("orders still open after 60s, e.g. %+v", open[0])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func order(t testing.TB, st store.Store, id int64) trade.Order {
	t.Helper()
	o, err := st.Order(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// checkBuySell places a buy and a sell of its holding through svc and checks that the
// processor completes both with every effect: order closed, holding, balance, quote volume,
// closed-order alert.
func checkBuySell(t *testing.T, st store.Store, svc *business.Service) {
	t.Helper()
	ctx := context.Background()
	const user, sym = "uid:3", "s:7"
	a0, _ := st.Account(ctx, user)
	q0, _ := st.Quote(ctx, sym)
	buy, err := svc.Buy(ctx, user, sym, 10)
	if err != nil {
		t.Fatal(err)
	}
	if buy.Status != trade.StatusOpen {
		t.Fatalf("async buy returned %s, want open", buy.Status)
	}
	waitFinal(t, st)
	b := order(t, st, buy.OrderID)
	if b.Status != trade.StatusClosed || b.HoldingID == 0 {
		t.Fatalf("buy after processing: %+v", b)
	}
	h, err := st.Holding(ctx, b.HoldingID)
	if err != nil || h.Quantity != 10 || h.Symbol != sym {
		t.Fatalf("holding of the buy: %+v, %v", h, err)
	}
	a1, _ := st.Account(ctx, user)
	if want := a0.Balance - b.Total(); a1.Balance != want {
		t.Fatalf("balance after buy %v, want %v", a1.Balance, want)
	}
	q1, _ := st.Quote(ctx, sym)
	if q1.Volume != q0.Volume+10 {
		t.Fatalf("quote volume after buy %d, want %d", q1.Volume, q0.Volume+10)
	}
	alerts, err := svc.GetClosedOrders(ctx, user)
	if err != nil || len(alerts) != 1 || alerts[0].OrderID != buy.OrderID {
		t.Fatalf("closed-order alerts %+v, %v; want the buy", alerts, err)
	}
	sell, err := svc.Sell(ctx, user, h.HoldingID, 0)
	if err != nil {
		t.Fatal(err)
	}
	waitFinal(t, st)
	s := order(t, st, sell.OrderID)
	if s.Status != trade.StatusClosed {
		t.Fatalf("sell after processing: %+v", s)
	}
	if _, err := st.Holding(ctx, h.HoldingID); err != store.ErrNotFound {
		t.Fatalf("holding after selling it all: %v, want gone", err)
	}
	a2, _ := st.Account(ctx, user)
	if want := a1.Balance + s.Total(); a2.Balance != want {
		t.Fatalf("balance after sell %v, want %v", a2.Balance, want)
	}
}

func TestDurableCompletesOrders(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dsn string) {
		st := loaded(t, dsn)
		_, js := broker(t)
		svc := business.New(st, business.Options{Dispatch: &orders.DurableDispatcher{JS: js}})
		p := runProcessor(t, st, nil, js)
		checkBuySell(t, st, svc)

		// A second delivery of a completed order (published without a message id, so the
		// stream's de-duplication does not drop it) is acked and changes nothing.
		ctx := context.Background()
		buy, err := svc.Buy(ctx, "uid:4", "s:2", 3)
		if err != nil {
			t.Fatal(err)
		}
		waitFinal(t, st)
		before := storetest.Take(t, st, []string{"uid:4"}, []string{"s:2"})
		n := p.Completed()
		if _, err := js.Publish(ctx, orders.DurableSubject, []byte(itoa(buy.OrderID))); err != nil {
			t.Fatal(err)
		}
		for p.Completed() == n {
			time.Sleep(10 * time.Millisecond)
		}
		after := storetest.Take(t, st, []string{"uid:4"}, []string{"s:2"})
		if d := storetest.Diff(before, after); d != "" {
			t.Fatalf("a second delivery changed the database:\n%s", d)
		}
	})
}

func TestVolatileCompletesOrders(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dsn string) {
		st := loaded(t, dsn)
		nc, _ := broker(t)
		runProcessor(t, st, nc, nil)
		svc := business.New(st, business.Options{Dispatch: &orders.VolatileDispatcher{NC: nc}})
		waitSubscribed(t, nc)
		checkBuySell(t, st, svc)
	})
}

// waitSubscribed waits until the processor's queue subscription reaches the server, so the
// first volatile publish is not dropped for want of a subscriber.
func waitSubscribed(t testing.TB, nc *nats.Conn) {
	t.Helper()
	// With no subscriber a request fails at once with no responders; once the processor
	// listens it times out instead (the processor drops the non-order and does not reply).
	for i := 0; ; i++ {
		_, err := nc.Request(orders.VolatileSubject, []byte("x"), 50*time.Millisecond)
		if err == nats.ErrTimeout {
			return
		}
		if i > 200 {
			t.Fatalf("the processor never subscribed: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type dropped struct{}

func (dropped) Dispatch(context.Context, trade.Order) error { return nil }

// The outbox: orders committed while their publish was lost (the process died after the
// commit, or NATS was down) are published by the relay and completed.
func TestRelayPublishesUnpublishedOrders(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st := loaded(t, dsn)
		_, js := broker(t)
		lost := business.New(st, business.Options{Dispatch: dropped{}})
		var ids []int64
		for i := range 5 {
			o, err := lost.Buy(ctx, "uid:1", "s:3", int64(i+1))
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, o.OrderID)
		}
		// NATS unreachable: the order is still accepted.
		downNC := natsConn(t, brokerURL(t))
		downJS, _ := jetstream.New(downNC)
		downNC.Close()
		o, err := business.New(st, business.Options{Dispatch: &orders.DurableDispatcher{JS: downJS}}).Buy(ctx, "uid:2", "s:3", 2)
		if err != nil {
			t.Fatalf("buy with NATS down: %v", err)
		}
		ids = append(ids, o.OrderID)

		relay := &orders.Relay{Store: st, JS: js, Grace: -1}
		n, err := relay.Sweep(ctx)
		if err != nil || n != len(ids) {
			t.Fatalf("relay published %d, %v; want %d", n, err, len(ids))
		}
		// A second sweep before processing is dropped by the stream's de-duplication.
		if _, err := relay.Sweep(ctx); err != nil {
			t.Fatal(err)
		}
		info, err := js.Stream(ctx, orders.StreamName)
		if err != nil {
			t.Fatal(err)
		}
		if si, _ := info.Info(ctx); si.State.Msgs != uint64(len(ids)) {
			t.Fatalf("stream holds %d messages, want %d (de-duplicated)", si.State.Msgs, len(ids))
		}
		runProcessor(t, st, nil, js)
		waitFinal(t, st)
		for _, id := range ids {
			if o := order(t, st, id); o.Status != trade.StatusClosed {
				t.Fatalf("order %d: %s", id, o.Status)
			}
		}
		wantAudit(t, st)
	})
}

var urlOnce sync.Mutex

// brokerURL starts a second server just to have an address to fail against.
func brokerURL(t *testing.T) string {
	urlOnce.Lock()
	defer urlOnce.Unlock()
	return natstest.Start(t, t.TempDir()).URL()
}

func wantAudit(t *testing.T, st store.Store) {
	t.Helper()
	sum, err := audit.Run(context.Background(), st, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Passed {
		t.Fatalf("audit failed: %+v", sum.Violations)
	}
}

// A mixed concurrent buy/sell load in each async mode drains completely and passes the audit.
func TestMixedLoadPassesAudit(t *testing.T) {
	for _, mode := range []orders.Mode{orders.AsyncDurable, orders.AsyncVolatile} {
		t.Run(string(mode), func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, dsn string) {
				st := loaded(t, dsn)
				nc, js := broker(t)
				var d business.OrderDispatcher
				if mode == orders.AsyncDurable {
					d = &orders.DurableDispatcher{JS: js}
					runProcessor(t, st, nil, js)
					runProcessor(t, st, nil, js) // two processors share the stream
				} else {
					d = &orders.VolatileDispatcher{NC: nc}
					runProcessor(t, st, nc, nil)
					runProcessor(t, st, nc, nil) // and the queue group
					waitSubscribed(t, nc)
				}
				load(t, business.New(st, business.Options{Dispatch: d, Seed: 3}))
				waitFinal(t, st)
				wantAudit(t, st)
			})
		})
	}
}

func load(t *testing.T, svc *business.Service) {
	t.Helper()
	ctx := context.Background()
	ops := 40
	if testing.Short() {
		ops = 15
	}
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 2))
			for range ops {
				u := "uid:" + itoa(int64(r.IntN(5)))
				var err error
				if r.IntN(2) == 0 {
					_, err = svc.Buy(ctx, u, "s:"+itoa(int64(r.IntN(20))), 1+r.Int64N(20))
				} else if hs, herr := svc.GetHoldings(ctx, u); herr != nil {
					err = herr
				} else if len(hs) > 0 {
					h := hs[r.IntN(len(hs))]
					_, err = svc.Sell(ctx, u, h.HoldingID, r.Int64N(h.Quantity+1))
				}
				if e := trade.AsError(err); e != nil && (e.Code == trade.CodeNotFound || e.Code == trade.CodeInvalid) {
					continue // the holding went to another worker's sell first
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func natsConn(t testing.TB, url string) *nats.Conn {
	t.Helper()
	return natstest.Connect(t, url)
}
