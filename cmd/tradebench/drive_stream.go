package main

import (
	"flag"
	"net/url"
	"strings"

	"github.com/tradebench/tradebench/driver/streamload"
	"github.com/tradebench/tradebench/internal/cliflag"
)

// streamFlags are drive's stream subscriber flags, a block of their own.
type streamFlags struct {
	subscribers int
	url         string
	timeField   string
}

func (f *streamFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.subscribers, "stream-subscribers", 0, "hold this many Server-Sent Events subscribers open during the run and report event delivery latency (publish → receipt) percentiles (0 = none)")
	fs.StringVar(&f.url, "stream-url", "/trade/stream/quotes", "the stream the subscribers follow: a path under --target or an absolute URL")
	fs.StringVar(&f.timeField, "stream-time-field", streamload.DefaultTimeField, "the JSON field of an event's data that holds its publish time (RFC 3339)")
}

// config is the stream configuration, nil without --stream-subscribers.
func (f *streamFlags) config(target string) (*streamload.Config, error) {
	if f.subscribers == 0 {
		return nil, nil
	}
	if f.subscribers < 0 || f.subscribers > 100_000 {
		return nil, cliflag.Errorf("--stream-subscribers must be between 0 and 100000, got %d", f.subscribers)
	}
	u := f.url
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		if target == "" {
			return nil, cliflag.Errorf("--stream-url %q is a path: it needs --target (or give an absolute URL)", u)
		}
		u = strings.TrimSuffix(target, "/") + "/" + strings.TrimPrefix(u, "/")
	}
	if p, err := url.Parse(u); err != nil || p.Host == "" {
		return nil, cliflag.Errorf("--stream-url: %q is not a URL", u)
	}
	if f.timeField == "" {
		return nil, cliflag.Errorf("--stream-time-field must name a JSON field")
	}
	return &streamload.Config{URL: u, Subscribers: f.subscribers, TimeField: f.timeField}, nil
}
