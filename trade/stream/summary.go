package stream

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/tradebench/tradebench/trade"
)

// DefaultSummaryEvery is how often a summary feed asks for the market summary while someone
// listens. The service caches the summary (60 s by default), so asking more often than that
// only finds the cached copy again, which is cheap and is not re-sent.
const DefaultSummaryEvery = 5 * time.Second

// SummaryFeed streams the market summary: one poller per web tier, running only while the
// summary stream has subscribers, publishes the summary whenever it differs from the last one
// sent. Polling is shared, so a thousand listeners cost one call per interval.
type SummaryFeed struct {
	get   func(context.Context) (trade.MarketSummary, error)
	every time.Duration
	hub   *Hub[trade.MarketSummary]
	log   *slog.Logger

	mu      sync.Mutex
	running bool
	last    trade.MarketSummary
	have    bool
}

// NewSummaryFeed polls get every interval (0 = DefaultSummaryEvery) while subscribed to.
func NewSummaryFeed(get func(context.Context) (trade.MarketSummary, error), every time.Duration, log *slog.Logger) *SummaryFeed {
	if every <= 0 {
		every = DefaultSummaryEvery
	}
	if log == nil {
		log = slog.Default()
	}
	return &SummaryFeed{get: get, every: every, hub: NewHub[trade.MarketSummary](4), log: log}
}

// Subscribe adds a listener and starts the poller if it is the first.
func (f *SummaryFeed) Subscribe() *Sub[trade.MarketSummary] {
	s := f.hub.Subscribe(nil)
	f.mu.Lock()
	if !f.running {
		f.running = true
		go f.poll()
	}
	f.mu.Unlock()
	return s
}

// Unsubscribe removes a listener; the poller stops at its next tick once none is left.
func (f *SummaryFeed) Unsubscribe(s *Sub[trade.MarketSummary]) { f.hub.Unsubscribe(s) }

// Stats are the feed's hub counters.
func (f *SummaryFeed) Stats() Stats { return f.hub.Stats() }

func (f *SummaryFeed) poll() {
	t := time.NewTicker(f.every)
	defer t.Stop()
	for {
		f.mu.Lock()
		if f.hub.Len() == 0 {
			f.running = false
			f.mu.Unlock()
			return
		}
		f.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), f.every+10*time.Second)
		m, err := f.get(ctx)
		cancel()
		if err != nil {
			f.log.Warn("stream: market summary unavailable", "err", err)
		} else {
			f.mu.Lock()
			changed := !f.have || !sameSummary(f.last, m)
			f.last, f.have = m, true
			f.mu.Unlock()
			if changed {
				f.hub.Publish("", m)
			}
		}
		<-t.C
	}
}

// sameSummary compares what a reader sees; the date alone changing is not news.
func sameSummary(a, b trade.MarketSummary) bool {
	if a.TSIA != b.TSIA || a.OpenTSIA != b.OpenTSIA || a.Volume != b.Volume ||
		len(a.TopGainers) != len(b.TopGainers) || len(a.TopLosers) != len(b.TopLosers) {
		return false
	}
	for i := range a.TopGainers {
		if a.TopGainers[i] != b.TopGainers[i] {
			return false
		}
	}
	for i := range a.TopLosers {
		if a.TopLosers[i] != b.TopLosers[i] {
			return false
		}
	}
	return true
}
