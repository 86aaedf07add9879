// Package stream is the live quote streamer: every executed buy or sell moves its quote, and the
// change is published — on a NATS subject per symbol (trade.quotes.SYMBOL) when the deployment
// has a broker, so every web tier of a scaled-out deployment hears every change, or straight into
// the web tier's own hub when the services run in its process. A web tier serves what its hub
// receives as Server-Sent Events (package web, /trade/stream/…).
//
// The rule that shapes the hub: a slow consumer never slows the publisher. Publish never
// blocks; a subscriber whose buffer is full is dropped (its Gone channel closes and the SSE
// handler ends the response; a browser's EventSource reconnects on its own).
package stream

import (
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tradebench/tradebench/trade"
)

// Quote is one quote change as streamed: `event: quote` with this JSON as data.
type Quote struct {
	Symbol string      `json:"symbol"`
	Price  trade.Money `json:"price"`
	Change trade.Money `json:"change"` // price - open, as on the quotes page
	Low    trade.Money `json:"low"`
	High   trade.Money `json:"high"`
	Volume int64       `json:"volume"`
	// Time is when the change was published (after its transaction committed): receivers
	// measure delivery latency from it.
	Time time.Time `json:"time"`
}

// QuoteOf is the streamed form of a quote changed at t.
func QuoteOf(q trade.Quote, t time.Time) Quote {
	return Quote{Symbol: q.Symbol, Price: q.Price, Change: q.Change, Low: q.Low, High: q.High, Volume: q.Volume, Time: t}
}

// Event is a quote change on its way to subscribers. Its Server-Sent Events frame is encoded
// once, by whichever subscriber writes it first, and shared by all of them: with many
// subscribers the JSON encoding per subscriber was a fifth of the streaming CPU.
type Event struct {
	Quote Quote
	once  sync.Once
	frame []byte
}

// NewEvent wraps a quote change for publishing.
func NewEvent(q Quote) *Event { return &Event{Quote: q} }

// Frame is the event as sent: "event: quote", its JSON as data, a blank line.
func (e *Event) Frame() []byte {
	e.once.Do(func() {
		data, _ := json.Marshal(e.Quote) // a Quote always encodes
		e.frame = append(append([]byte("event: quote\ndata: "), data...), "\n\n"...)
	})
	return e.frame
}

// DefaultBuffer is how many events a subscriber may fall behind before it is dropped.
const DefaultBuffer = 256

// Hub fans events out to subscribers, each of which wants some keys (symbols) or all of them.
// It is safe for concurrent use.
type Hub[T any] struct {
	buf int

	mu    sync.RWMutex
	byKey map[string]map[*Sub[T]]struct{}
	all   map[*Sub[T]]struct{}
	n     int

	published, delivered, dropped atomic.Int64
}

// Sub is one subscriber. Read events from C until Gone closes (dropped as too slow, or
// unsubscribed); C itself is never closed, so a publisher can never send on a closed channel.
type Sub[T any] struct {
	C    <-chan T
	c    chan T
	keys []string
	gone chan struct{}
	once sync.Once
}

// Gone is closed when the subscriber was dropped or unsubscribed.
func (s *Sub[T]) Gone() <-chan struct{} { return s.gone }

// NewHub returns a hub whose subscribers may fall buffer events behind (0 = DefaultBuffer).
func NewHub[T any](buffer int) *Hub[T] {
	if buffer <= 0 {
		buffer = DefaultBuffer
	}
	return &Hub[T]{buf: buffer, byKey: map[string]map[*Sub[T]]struct{}{}, all: map[*Sub[T]]struct{}{}}
}

// Subscribe adds a subscriber for events with the given keys; no keys means every event.
func (h *Hub[T]) Subscribe(keys []string) *Sub[T] {
	c := make(chan T, h.buf)
	s := &Sub[T]{C: c, c: c, keys: keys, gone: make(chan struct{})}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.n++
	if len(keys) == 0 {
		h.all[s] = struct{}{}
		return s
	}
	for _, k := range keys {
		m := h.byKey[k]
		if m == nil {
			m = map[*Sub[T]]struct{}{}
			h.byKey[k] = m
		}
		m[s] = struct{}{}
	}
	return s
}

// Unsubscribe removes s (a no-op if it is gone already).
func (h *Hub[T]) Unsubscribe(s *Sub[T]) {
	s.once.Do(func() {
		h.mu.Lock()
		h.n--
		if len(s.keys) == 0 {
			delete(h.all, s)
		}
		for _, k := range s.keys {
			if m := h.byKey[k]; m != nil {
				delete(m, s)
				if len(m) == 0 {
					delete(h.byKey, k)
				}
			}
		}
		h.mu.Unlock()
		close(s.gone)
	})
}

// Len is the number of subscribers.
func (h *Hub[T]) Len() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.n
}

// Publish hands v to every subscriber of key (and to those of all keys) without ever waiting:
// a subscriber with a full buffer is dropped.
func (h *Hub[T]) Publish(key string, v T) {
	h.published.Add(1)
	var slow []*Sub[T]
	send := func(m map[*Sub[T]]struct{}) {
		for s := range m {
			select {
			case s.c <- v:
				h.delivered.Add(1)
			default:
				slow = append(slow, s)
			}
		}
	}
	h.mu.RLock()
	send(h.all)
	if key != "" {
		send(h.byKey[key])
	}
	h.mu.RUnlock()
	for _, s := range slow {
		h.dropped.Add(1)
		h.Unsubscribe(s)
	}
}

// Stats are a hub's counters since it started.
type Stats struct {
	Subscribers int   `json:"subscribers"`
	Published   int64 `json:"published"`
	Delivered   int64 `json:"delivered"`
	Dropped     int64 `json:"dropped"` // subscribers dropped as too slow
}

// Stats returns the counters.
func (h *Hub[T]) Stats() Stats {
	return Stats{Subscribers: h.Len(), Published: h.published.Load(), Delivered: h.delivered.Load(), Dropped: h.dropped.Load()}
}
