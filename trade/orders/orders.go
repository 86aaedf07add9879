// Package orders carries placed (open) orders from the services tier to the order processor
// over NATS, for the asynchronous order modes:
//
//   - async-durable: a JetStream work-queue stream on file storage, explicit acks, a message id
//     per order for de-duplication, and a relay (the transactional outbox) that republishes open
//     orders, so an order committed to the database is never lost, even if the services process
//     dies between the commit and the publish or NATS is down at the time.
//   - async-volatile: a core NATS subject consumed by a queue group: fast, but an order in flight
//     when a process or the server dies is lost and stays open.
//
// The order row itself is the outbox: an order is written open in the order's own
// transaction, and it stays open until the processor completes it, so "open and older than
// the grace period" is exactly "maybe not yet delivered". Completing is idempotent
// (trade.OrderProcessor), so redelivery and republishing can never apply an order twice.
package orders

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tradebench/tradebench/internal/suggest"
	"github.com/tradebench/tradebench/trade"
)

// Mode is an order processing mode (serve --orders).
type Mode string

// The order modes.
const (
	Sync          Mode = "sync"
	AsyncDurable  Mode = "async-durable"
	AsyncVolatile Mode = "async-volatile"
	AsyncHTTP     Mode = "async-http"
	AsyncGRPC     Mode = "async-grpc"
)

// Modes lists the order modes, the default first.
var Modes = []Mode{Sync, AsyncDurable, AsyncVolatile, AsyncHTTP, AsyncGRPC}

// ParseMode checks an --orders value.
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes {
		if string(m) == s {
			return m, nil
		}
	}
	names := make([]string, len(Modes))
	for i, m := range Modes {
		names[i] = string(m)
	}
	return "", fmt.Errorf("unknown order mode %q%s: use one of %s", s, suggest.DidYouMean(s, names), strings.Join(names, ", "))
}

// Names of the NATS objects both sides agree on.
const (
	StreamName      = "TRADEBENCH_ORDERS"
	DurableSubject  = "tradebench.orders.durable"
	VolatileSubject = "tradebench.orders.volatile"
	ConsumerName    = "order-processor"
	QueueGroup      = "order-processors"
)

// DedupWindow is how long JetStream remembers message ids: a republished order within it is
// dropped by the server; after it, the processor's idempotent completion drops it.
const DedupWindow = 10 * time.Minute

// msgID names one placed order. The open date is part of it because a reset database hands
// out order ids again, and a new order must not be dropped as a duplicate of an old one.
func msgID(o trade.Order) string {
	return strconv.FormatInt(o.OrderID, 10) + "@" + strconv.FormatInt(o.OpenDate.UnixMicro(), 10)
}

func payload(id int64) []byte { return strconv.AppendInt(nil, id, 10) }

func parsePayload(b []byte) (int64, error) {
	id, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("order message %q is not an order id", b)
	}
	return id, nil
}
