package orders

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/store"
)

// EnsureStream creates the durable order stream if it does not exist: a work queue (a message
// is gone once a processor acks it) on file storage. An existing stream is used as it is, since
// updating a stream while consumers attach to it races inside the server.
func EnsureStream(ctx context.Context, js jetstream.JetStream) (jetstream.Stream, error) {
	st, err := js.Stream(ctx, StreamName)
	if err == nil {
		return st, nil
	}
	if !errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, fmt.Errorf("looking up the order stream %s: %w", StreamName, err)
	}
	st, err = js.CreateStream(ctx, jetstream.StreamConfig{
		Name:       StreamName,
		Subjects:   []string{DurableSubject},
		Retention:  jetstream.WorkQueuePolicy,
		Storage:    jetstream.FileStorage,
		Duplicates: DedupWindow,
	})
	if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) { // created meanwhile by another process
		return js.Stream(ctx, StreamName)
	}
	if err != nil {
		return nil, fmt.Errorf("creating the order stream %s: %w", StreamName, err)
	}
	return st, nil
}

// publishTimeout bounds a publish in the request path: with NATS down the order is already
// safe in the database and the relay delivers it later.
const publishTimeout = 2 * time.Second

func publishDurable(ctx context.Context, js jetstream.JetStream, o trade.Order) error {
	ctx, cancel := context.WithTimeout(ctx, publishTimeout)
	defer cancel()
	_, err := js.Publish(ctx, DurableSubject, payload(o.OrderID), jetstream.WithMsgID(msgID(o)))
	return err
}

// DurableDispatcher publishes placed orders to the durable stream (inprocess.OrderDispatcher).
type DurableDispatcher struct {
	JS  jetstream.JetStream
	Log *slog.Logger
}

// Dispatch publishes o. A failed publish is logged, not returned: the order is committed, and
// the Relay publishes it once NATS is back, so the user's order is accepted either way.
func (d *DurableDispatcher) Dispatch(ctx context.Context, o trade.Order) error {
	if err := publishDurable(context.WithoutCancel(ctx), d.JS, o); err != nil {
		logger(d.Log).Warn("order not published; the relay will publish it", "order", o.OrderID, "err", err)
	}
	return nil
}

// Relay is the outbox relay of the durable mode: it publishes open orders older than Grace,
// which covers orders whose publish was lost (process killed after the commit, NATS down).
// Several relays may run; the stream's de-duplication and the idempotent processor make a
// second publish harmless.
type Relay struct {
	Store store.Store
	JS    jetstream.JetStream
	// Grace is how old an open order must be before the relay publishes it; it keeps the relay
	// from re-sending orders the request path has just published (0 = 5s; negative = none).
	Grace time.Duration
	// Interval between sweeps (default 2s).
	Interval time.Duration
	Log      *slog.Logger
}

const relayPage = 1000

// Sweep publishes every open order older than Grace once and returns how many it published.
func (r *Relay) Sweep(ctx context.Context) (int, error) {
	grace := r.Grace
	if grace == 0 {
		grace = 5 * time.Second
	}
	cut := time.Now().Add(-grace)
	n := 0
	var after int64
	for {
		os, err := r.Store.OpenOrders(ctx, after, relayPage)
		if err != nil {
			return n, fmt.Errorf("relay: listing open orders: %w", err)
		}
		for _, o := range os {
			after = o.OrderID
			if grace > 0 && o.OpenDate.After(cut) {
				continue
			}
			if err := publishDurable(ctx, r.JS, o); err != nil {
				return n, fmt.Errorf("relay: publishing order %d: %w", o.OrderID, err)
			}
			n++
		}
		if len(os) < relayPage {
			return n, nil
		}
	}
}

// Run sweeps until ctx ends; a failed sweep is logged and retried at the next tick.
func (r *Relay) Run(ctx context.Context) error {
	iv := r.Interval
	if iv <= 0 {
		iv = 2 * time.Second
	}
	t := time.NewTicker(iv)
	defer t.Stop()
	for {
		if n, err := r.Sweep(ctx); err != nil && ctx.Err() == nil {
			logger(r.Log).Warn("order relay", "err", err)
		} else if n > 0 {
			logger(r.Log).Info("order relay published open orders", "orders", n)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// ackWait is how long a fetched message may stay unacked before JetStream redelivers it (to
// this or another processor): far longer than completing an order takes, short enough that
// an order held by a killed processor is soon taken by another.
const ackWait = 10 * time.Second

// consumeDurable pulls from the shared durable consumer, so every processor takes a share.
func (p *Processor) consumeDurable(ctx context.Context, js jetstream.JetStream, jobs chan<- job) error {
	if _, err := EnsureStream(ctx, js); err != nil {
		return err
	}
	// One durable consumer shared by every processor: each fetch takes a share. Like the
	// stream, an existing one is used as it is.
	cons, err := js.Consumer(ctx, StreamName, ConsumerName)
	if errors.Is(err, jetstream.ErrConsumerNotFound) {
		cons, err = js.CreateConsumer(ctx, StreamName, jetstream.ConsumerConfig{
			Durable:       ConsumerName,
			AckPolicy:     jetstream.AckExplicitPolicy,
			AckWait:       ackWait,
			MaxAckPending: 20000,
		})
		if errors.Is(err, jetstream.ErrConsumerExists) {
			cons, err = js.Consumer(ctx, StreamName, ConsumerName)
		}
	}
	if err != nil {
		return fmt.Errorf("the order consumer: %w", err)
	}
	for ctx.Err() == nil {
		batch, err := cons.Fetch(p.batch(), jetstream.FetchMaxWait(time.Second))
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			logger(p.Log).Warn("fetching orders", "err", err)
			sleep(ctx, 250*time.Millisecond)
			continue
		}
		for m := range batch.Messages() {
			m := m
			id, err := parsePayload(m.Data())
			if err != nil {
				p.dropMalformed(err)
				_ = m.Term()
				continue
			}
			select {
			case jobs <- job{id: id, done: func(err error) { ackDurable(m, err, p.Log) }}:
			case <-ctx.Done():
				return nil // unacked: redelivered after ackWait
			}
		}
		if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) && ctx.Err() == nil {
			logger(p.Log).Warn("fetching orders", "err", err)
		}
	}
	return nil
}

// ackDurable acks a completed order, drops an order that no longer exists (a reset database),
// and asks for redelivery of one that failed (database unavailable).
func ackDurable(m jetstream.Msg, err error, log *slog.Logger) {
	switch {
	case err == nil:
		_ = m.Ack()
	case errors.Is(err, trade.ErrNotFound):
		_ = m.Term()
	default:
		logger(log).Warn("completing order failed; redelivering", "err", err)
		_ = m.NakWithDelay(time.Second)
	}
}
