package orders

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/tradebench/tradebench/trade"
)

// VolatileDispatcher publishes placed orders on the core NATS subject
// (inprocess.OrderDispatcher). Nothing stores them: an order in flight when the server or a
// processor dies is lost and stays open.
type VolatileDispatcher struct {
	NC *nats.Conn
}

// Dispatch publishes o; a failure is returned, since nothing would ever deliver the order.
func (d *VolatileDispatcher) Dispatch(_ context.Context, o trade.Order) error {
	if err := d.NC.Publish(VolatileSubject, payload(o.OrderID)); err != nil {
		return fmt.Errorf("publishing order %d: %w", o.OrderID, err)
	}
	return nil
}

// volatileBuffer bounds the orders a processor holds in memory from the volatile subject; more
// are dropped by NATS as a slow consumer, which is what volatile means.
const volatileBuffer = 65536

// consumeVolatile takes a share of the volatile subject in the processors' queue group.
// subscribed is called once the server has the subscription (a flush round trip after it).
func (p *Processor) consumeVolatile(ctx context.Context, nc *nats.Conn, jobs chan<- job, subscribed func()) error {
	msgs := make(chan *nats.Msg, volatileBuffer)
	sub, err := nc.ChanQueueSubscribe(VolatileSubject, QueueGroup, msgs)
	if err != nil {
		return fmt.Errorf("subscribing to %s: %w", VolatileSubject, err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	if err := nc.FlushTimeout(10 * time.Second); err != nil {
		return fmt.Errorf("subscribing to %s: %w", VolatileSubject, err)
	}
	subscribed()
	for {
		select {
		case <-ctx.Done():
			return nil
		case m := <-msgs:
			id, err := parsePayload(m.Data)
			if err != nil {
				p.dropMalformed(err)
				continue
			}
			done := func(err error) {
				if err != nil {
					logger(p.Log).Warn("completing order failed; it stays open (volatile)", "order", id, "err", err)
				}
			}
			select {
			case jobs <- job{id: id, done: done}:
			case <-ctx.Done():
				return nil
			}
		}
	}
}
