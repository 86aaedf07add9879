package orders

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"golang.org/x/sync/errgroup"

	"github.com/tradebench/tradebench/trade"
)

// Processor is the order processor: it completes the orders every transport delivers, with
// Concurrency workers shared by all transports.
type Processor struct {
	Orders trade.OrderProcessor
	// Concurrency is the number of orders completed at once (default 8).
	Concurrency int
	// Batch is how many durable messages one fetch pulls (default 64).
	Batch int
	Log   *slog.Logger

	completed atomic.Int64
	failed    atomic.Int64
	malformed atomic.Int64

	readyOnce, markOnce sync.Once
	ready               chan struct{}
}

// markReady closes Ready (once, should Run be called again).
func (p *Processor) markReady() { p.markOnce.Do(func() { close(p.readyCh()) }) }

func (p *Processor) readyCh() chan struct{} {
	p.readyOnce.Do(func() { p.ready = make(chan struct{}) })
	return p.ready
}

// Ready is closed once Run's subscriptions have reached the broker: from then on a volatile
// publish is delivered to this processor rather than dropped for want of a subscriber.
func (p *Processor) Ready() <-chan struct{} { return p.readyCh() }

// job is one delivered order id and how to acknowledge it.
type job struct {
	id   int64
	done func(error)
}

func (p *Processor) batch() int {
	if p.Batch <= 0 {
		return DefaultBatch
	}
	return p.Batch
}

func (p *Processor) concurrency() int {
	if p.Concurrency <= 0 {
		return DefaultConcurrency
	}
	return p.Concurrency
}

// Completed is how many deliveries were completed (a redelivered final order counts too).
func (p *Processor) Completed() int64 { return p.completed.Load() }

// Failed is how many deliveries failed.
func (p *Processor) Failed() int64 { return p.failed.Load() }

// Malformed is how many messages on the order subjects were dropped as not an order id.
func (p *Processor) Malformed() int64 { return p.malformed.Load() }

// dropMalformed counts a message that is not an order id, and logs the first and then one in
// 1000 with the count so far, so that 20,000 garbage messages do not write 20,000 ERROR lines.
func (p *Processor) dropMalformed(err error) {
	if n := p.malformed.Add(1); n%1000 == 1 {
		logger(p.Log).Warn("dropping malformed order messages (one logged in 1000)", "count", n, "err", err)
	}
}

// Run consumes the durable stream (if js is not nil) and the volatile subject (if nc is not
// nil) until ctx ends, and returns the first fatal error. Other transports (HTTP, gRPC) hand
// orders in through Complete.
func (p *Processor) Run(ctx context.Context, nc *nats.Conn, js jetstream.JetStream) error {
	jobs := make(chan job, p.batch())
	g, gctx := errgroup.WithContext(ctx)
	var workers sync.WaitGroup
	for range p.concurrency() {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for j := range jobs {
				j.done(p.Complete(context.WithoutCancel(gctx), j.id))
			}
		}()
	}
	if js != nil {
		g.Go(func() error { return p.consumeDurable(gctx, js, jobs) })
	}
	if nc != nil {
		g.Go(func() error { return p.consumeVolatile(gctx, nc, jobs, p.markReady) })
	} else {
		// the durable stream keeps what is published before the consumer fetches: ready now
		p.markReady()
	}
	err := g.Wait()
	close(jobs)
	workers.Wait()
	return err
}

// Complete completes one order and counts the outcome.
func (p *Processor) Complete(ctx context.Context, id int64) error {
	_, err := p.CompleteOrder(ctx, id)
	return err
}

// CompleteOrder implements trade.OrderProcessor, counting outcomes: the HTTP and gRPC endpoints
// of the order processor (trade/remote rest and grpc servers) serve it.
func (p *Processor) CompleteOrder(ctx context.Context, id int64) (trade.Order, error) {
	o, err := p.Orders.CompleteOrder(ctx, id)
	if err != nil {
		p.failed.Add(1)
		return o, err
	}
	p.completed.Add(1)
	return o, nil
}

var _ trade.OrderProcessor = (*Processor)(nil)

func logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.Default()
	}
	return l
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
