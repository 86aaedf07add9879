package stream

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/tradebench/tradebench/trade"
)

// SubjectPrefix is the NATS subject prefix of quote changes: trade.quotes.SYMBOL.
const SubjectPrefix = "trade.quotes."

// Subject is the NATS subject of a symbol's changes.
func Subject(symbol string) string { return SubjectPrefix + symbol }

// Publisher is where the business service reports moved quotes (inprocess.QuotePublisher). It
// publishes on NATS once Connect has given it a connection, and into a local hub otherwise; a
// process that has neither (a services host without a broker) publishes nowhere.
//
// It exists before the broker does — the service is built before the order machinery starts
// an embedded NATS server — hence the late Connect.
type Publisher struct {
	local *Hub[*Event]
	nc    atomic.Pointer[nats.Conn]
	log   *slog.Logger
	fails atomic.Int64
}

// NewPublisher returns a publisher into local (nil: none until Connect).
func NewPublisher(local *Hub[*Event], log *slog.Logger) *Publisher {
	if log == nil {
		log = slog.Default()
	}
	return &Publisher{local: local, log: log}
}

// Connect makes the publisher send on nc instead of the local hub. The local hub, if any,
// must then hear changes through Bridge, so that changes made by other processes reach it too
// and each change arrives once.
func (p *Publisher) Connect(nc *nats.Conn) { p.nc.Store(nc) }

// PublishQuote publishes a changed quote, stamped now. It never blocks on a subscriber; a NATS
// publish only buffers in the connection.
func (p *Publisher) PublishQuote(q trade.Quote) {
	ev := QuoteOf(q, time.Now().UTC())
	if nc := p.nc.Load(); nc != nil {
		data, err := json.Marshal(ev)
		if err == nil {
			err = nc.Publish(Subject(q.Symbol), data)
		}
		if err != nil && p.fails.Add(1)%1000 == 1 {
			// a broker outage must not flood the log: one line per 1000 failures
			p.log.Warn("stream: cannot publish a quote change", "symbol", q.Symbol, "err", err, "failures", p.fails.Load())
		}
		return
	}
	if p.local != nil {
		p.local.Publish(ev.Symbol, NewEvent(ev))
	}
}

// Bridge subscribes to every symbol's subject on nc and publishes what arrives into hub: how
// a web tier hears quote changes made anywhere in the deployment. Unsubscribe the returned
// subscription to stop. A message that is not a quote of its subject's symbol is dropped and
// counted in bad (nil: not counted), and one in 1000 is logged.
func Bridge(nc *nats.Conn, hub *Hub[*Event], log *slog.Logger, bad *atomic.Int64) (*nats.Subscription, error) {
	if log == nil {
		log = slog.Default()
	}
	if bad == nil {
		bad = new(atomic.Int64)
	}
	sub, err := nc.Subscribe(SubjectPrefix+">", func(m *nats.Msg) {
		var ev Quote
		if err := json.Unmarshal(m.Data, &ev); err != nil || ev.Symbol != strings.TrimPrefix(m.Subject, SubjectPrefix) {
			if bad.Add(1)%1000 == 1 {
				log.Warn("stream: ignoring a malformed quote message", "subject", truncate(m.Subject, 100), "count", bad.Load())
			}
			return
		}
		hub.Publish(ev.Symbol, NewEvent(ev)) // re-encoded: the broker's bytes are not trusted as a frame
	})
	if err != nil {
		return nil, fmt.Errorf("stream: subscribe to %s>: %w", SubjectPrefix, err)
	}
	// The default pending limit drops messages when the callback falls behind rather than
	// slowing the broker; the hub itself never blocks, so the callback keeps up.
	return sub, nc.Flush()
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
