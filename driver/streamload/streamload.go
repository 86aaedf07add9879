// Package streamload holds N Server-Sent Events subscribers open on a stream while a drive runs
// and measures event delivery latency: from the publish time an event carries in its JSON data
// to the moment a subscriber has read it. It speaks only SSE over HTTP; what the stream and the
// time field mean is the system's business (tradebench's /trade/stream/quotes stamps "time").
//
// The latency is publish → receipt across two clocks when the publisher and the driver run on
// different machines: synchronise them (chrony/NTP) or the numbers carry the clock offset.
package streamload

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tradebench/tradebench/driver/recorder"
	"github.com/tradebench/tradebench/internal/dsn"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/internal/sse"
	"github.com/tradebench/tradebench/report"
)

// DefaultTimeField is the JSON field of an event's data that holds its publish time.
const DefaultTimeField = "time"

// Config is the stream subscribers of one drive.
type Config struct {
	URL         string // the stream's absolute URL, or a path under the drive's target
	Subscribers int
	// TimeField is the event data's JSON field with the publish time, RFC 3339
	// (DefaultTimeField if empty).
	TimeField string
	// ConnectTimeout bounds the wait for every subscriber to be connected before the run
	// starts (0 = 30s).
	ConnectTimeout time.Duration
}

// Run is subscribers running.
type Run struct {
	cfg      Config
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	hc       *http.Client
	from, to atomic.Int64 // the measured window, unix nanoseconds (0 = not set)

	mu    sync.Mutex
	hists []*hdr.Histogram

	connected                                 atomic.Int64
	reconnects, refused, connectErrs, untimed atomic.Int64
	connectedAtStart                          int
}

// MaxSubscribers bounds Config.Subscribers: each holds a connection and a goroutine open.
const MaxSubscribers = 100_000

// Validate reports subscribers that cannot run as configured, as a *setting.Error naming the
// field: their number (1 to MaxSubscribers) and the stream's URL (absolute http or https, once
// SetDefaults has put a path under the target).
func (c Config) Validate() error {
	if c.Subscribers < 1 || c.Subscribers > MaxSubscribers {
		return setting.Errorf("Subscribers", "must be between 1 and %d, got %d", MaxSubscribers, c.Subscribers)
	}
	if p, err := url.Parse(c.URL); err != nil || p.Host == "" || p.Scheme != "http" && p.Scheme != "https" {
		return setting.Errorf("URL", "%q is not an http:// or https:// URL (a path needs the target to be under)", c.URL)
	}
	return nil
}

// SetDefaults fills the zero fields that have a default: the time field, the connect timeout,
// and a URL given as a path (tradebench's is /trade/stream/quotes) put under target, the
// system under test's base URL.
func (c *Config) SetDefaults(target string) {
	if c.TimeField == "" {
		c.TimeField = DefaultTimeField
	}
	if c.ConnectTimeout <= 0 {
		c.ConnectTimeout = 30 * time.Second
	}
	if !strings.HasPrefix(c.URL, "http://") && !strings.HasPrefix(c.URL, "https://") && target != "" {
		c.URL = strings.TrimSuffix(target, "/") + "/" + strings.TrimPrefix(c.URL, "/")
	}
}

// Start opens the subscribers and waits until all are connected (or ConnectTimeout passed).
func Start(ctx context.Context, cfg Config) (*Run, error) {
	cfg.SetDefaults("")
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	tr := &http.Transport{MaxIdleConnsPerHost: cfg.Subscribers, ResponseHeaderTimeout: 30 * time.Second}
	r := &Run{cfg: cfg, hc: &http.Client{Transport: tr}}
	ctx, r.cancel = context.WithCancel(context.WithoutCancel(ctx))
	for range cfg.Subscribers {
		h := recorder.NewHistogram()
		r.hists = append(r.hists, h)
		r.wg.Add(1)
		go r.subscriber(ctx, h)
	}
	deadline := time.Now().Add(cfg.ConnectTimeout)
	for r.connected.Load() < int64(cfg.Subscribers) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	r.connectedAtStart = int(r.connected.Load())
	if r.connectedAtStart == 0 {
		r.Stop()
		return nil, fmt.Errorf("no stream subscriber could connect to %s within %v (refused %d, errors %d)", dsn.Redact(cfg.URL), cfg.ConnectTimeout, r.refused.Load(), r.connectErrs.Load())
	}
	return r, nil
}

// Window sets the measured window: only events received inside it are counted.
func (r *Run) Window(from, to time.Time) {
	r.from.Store(from.UnixNano())
	r.to.Store(to.UnixNano())
}

func (r *Run) subscriber(ctx context.Context, h *hdr.Histogram) {
	defer r.wg.Done()
	first := true
	for ctx.Err() == nil {
		st, err := sse.Dial(ctx, r.hc, r.cfg.URL)
		var se *sse.StatusError
		switch {
		case errors.As(err, &se):
			r.refused.Add(1)
		case err != nil:
			if ctx.Err() == nil {
				r.connectErrs.Add(1)
			}
		default:
			if first {
				r.connected.Add(1)
				first = false
			} else {
				r.reconnects.Add(1)
			}
			r.read(st, h)
			st.Close()
			continue
		}
		select { // back off after a refusal or an error, not after a stream that ran
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// read records each event's latency until the stream ends.
func (r *Run) read(st *sse.Stream, h *hdr.Histogram) {
	for {
		ev, err := st.Next()
		if err != nil {
			return
		}
		now := time.Now()
		if ev.Data == "" || ev.Data[0] != '{' {
			continue // not a data event (e.g. a stream's end notice without JSON)
		}
		from, to := r.from.Load(), r.to.Load()
		if from == 0 || now.UnixNano() < from || now.UnixNano() > to {
			continue
		}
		var fields map[string]json.RawMessage
		var at time.Time
		if json.Unmarshal([]byte(ev.Data), &fields) != nil || json.Unmarshal(fields[r.cfg.TimeField], &at) != nil || at.IsZero() {
			r.untimed.Add(1)
			continue
		}
		r.mu.Lock() // a histogram is not goroutine-safe; Result merges under the same lock
		recorder.Record(h, now.Sub(at))
		r.mu.Unlock()
	}
}

// Stop closes the subscribers.
func (r *Run) Stop() {
	r.cancel()
	r.wg.Wait()
}

// Result merges the subscribers' histograms (call after Stop).
func (r *Run) Result(steadySeconds float64) report.StreamDelivery {
	all := recorder.NewHistogram()
	r.mu.Lock()
	for _, h := range r.hists {
		all.Merge(h)
	}
	r.mu.Unlock()
	n := all.TotalCount()
	res := report.StreamDelivery{URL: dsn.Redact(r.cfg.URL), Subscribers: r.cfg.Subscribers, Connected: r.connectedAtStart,
		Delivery:   recorder.Summarize("stream delivery", all, n, 0, 0, steadySeconds),
		Reconnects: r.reconnects.Load(), Refused: r.refused.Load(), ConnectErrs: r.connectErrs.Load(), Untimed: r.untimed.Load()}
	if steadySeconds > 0 {
		res.EventsPerSec = float64(n) / steadySeconds
	}
	res.Delivery.Histogram = "" // the percentiles are enough in a results file
	return res
}

// Measure runs run — one load run with the given ramp-up and steady state — with cfg's
// subscribers open around it, and adds what they measured to its results (Results.Stream).
// With cfg nil it only runs run.
func Measure(ctx context.Context, cfg *Config, rampUp, steady time.Duration, run func() (*report.Results, error)) (*report.Results, error) {
	if cfg == nil {
		return run()
	}
	sr, err := Start(ctx, *cfg)
	if err != nil {
		return nil, err
	}
	defer sr.Stop()
	start := time.Now()
	sr.Window(start.Add(rampUp), start.Add(rampUp+steady))
	res, err := run()
	sr.Stop()
	if res != nil {
		r := sr.Result(res.SteadySeconds)
		res.Stream = &r
	}
	return res, err
}
