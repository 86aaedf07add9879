package orders

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/tradebench/tradebench/trade"
)

// DirectDispatcher hands placed orders straight to an order processor's endpoint, the async-http
// and async-grpc modes: Proc is a remote client (trade/remote rest or grpc) whose CompleteOrder
// calls the processor. The call runs in the background, so Buy and Sell return at once; at most
// Concurrency calls are in flight and further orders wait for a slot. Nothing stores an order
// in flight: like the volatile mode, orders are lost if the web process or the processor dies.
type DirectDispatcher struct {
	Proc        trade.OrderProcessor
	Concurrency int // default 32
	Timeout     time.Duration
	Log         *slog.Logger

	once sync.Once
	sem  chan struct{}
	wg   sync.WaitGroup
}

// Dispatch sends o in the background.
func (d *DirectDispatcher) Dispatch(_ context.Context, o trade.Order) error {
	d.once.Do(func() {
		n := d.Concurrency
		if n <= 0 {
			n = 32
		}
		d.sem = make(chan struct{}, n)
	})
	// Waits for a slot even if the request is cancelled: the order is committed, and giving up
	// here would leave it open for good.
	d.sem <- struct{}{}
	d.wg.Add(1)
	go func() {
		defer func() { <-d.sem; d.wg.Done() }()
		tmo := d.Timeout
		if tmo <= 0 {
			tmo = 30 * time.Second
		}
		cctx, cancel := context.WithTimeout(context.Background(), tmo)
		defer cancel()
		if _, err := d.Proc.CompleteOrder(cctx, o.OrderID); err != nil {
			logger(d.Log).Warn("order processor did not take the order; it stays open", "order", o.OrderID, "err", err)
		}
	}()
	return nil
}

// Wait waits for the orders in flight (on shutdown).
func (d *DirectDispatcher) Wait() { d.wg.Wait() }
