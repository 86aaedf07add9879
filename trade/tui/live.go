package tui

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tradebench/tradebench/internal/sse"
	"github.com/tradebench/tradebench/trade/stream"
)

// live follows a web tier's quote stream for a set of symbols and hands changes to the UI. A
// stream ends now and then (a stream opened without a web session lives as long as the web
// tier's timeouts) or breaks; live reconnects after a pause, so the quotes screen stays live.
type live struct {
	base string // the web tier's base URL
	out  chan stream.Quote
	hc   *http.Client

	cancel context.CancelFunc
}

func newLive(base string) *live {
	return &live{base: strings.TrimSuffix(base, "/"), out: make(chan stream.Quote, 256), hc: &http.Client{}}
}

// follow replaces the followed symbols.
func (l *live) follow(symbols []string) {
	l.stop()
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	u := l.base + "/trade/stream/quotes?symbols=" + url.QueryEscape(strings.Join(symbols, ","))
	go l.run(ctx, u)
}

func (l *live) stop() {
	if l.cancel != nil {
		l.cancel()
	}
}

func (l *live) run(ctx context.Context, u string) {
	for ctx.Err() == nil {
		st, err := sse.Dial(ctx, l.hc, u)
		if err == nil {
			for {
				ev, err := st.Next()
				if err != nil {
					break
				}
				var q stream.Quote
				if ev.Name != "quote" || json.Unmarshal([]byte(ev.Data), &q) != nil {
					continue
				}
				select {
				case l.out <- q:
				default: // the UI is behind: it will catch up on the next event of that symbol
				}
			}
			st.Close()
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}
