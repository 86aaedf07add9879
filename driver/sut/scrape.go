package sut

import (
	"github.com/tradebench/tradebench/internal/dsn"

	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// maxScrapeBytes bounds what a scrape reads: the process metrics come first in any sane
// exposition, and a server must not make the driver hold an endless body.
const maxScrapeBytes = 8 << 20

// Scrape reads a server's standard Prometheus process metrics: process_cpu_seconds_total and
// process_resident_memory_bytes (any client library's process collector exports them).
type Scrape struct {
	URL    string
	shown  string // URL with its credentials hidden (dsn.Redact), for results and errors
	name   string
	client *http.Client
}

// Scrapes are the sources of a comma-separated list of Prometheus endpoints ("" = none), each
// checked as NewScrape checks it.
func Scrapes(list string) ([]Source, error) {
	if list == "" {
		return nil, nil
	}
	var srcs []Source
	for _, u := range strings.Split(list, ",") {
		src, err := NewScrape(strings.TrimSpace(u))
		if err != nil {
			return nil, err
		}
		srcs = append(srcs, src)
	}
	return srcs, nil
}

// NewScrape checks u (an http or https URL) and names the source after its host:port.
func NewScrape(u string) (*Scrape, error) {
	pu, err := url.Parse(u)
	if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
		return nil, fmt.Errorf("%q is not an http(s) URL of a Prometheus endpoint (e.g. http://web1:9464/metrics)", dsn.Redact(u))
	}
	// a redirect is followed only on the endpoint's own origin, as the driver's requests are
	redirect := func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 || req.URL.Scheme != pu.Scheme || req.URL.Host != pu.Host {
			return http.ErrUseLastResponse
		}
		return nil
	}
	return &Scrape{URL: u, shown: dsn.Redact(u), name: pu.Host, client: &http.Client{Timeout: Interval, CheckRedirect: redirect}}, nil
}

func (s *Scrape) Name() string   { return s.name }
func (s *Scrape) PID() int       { return 0 }
func (s *Scrape) Origin() string { return s.shown }

// Read scrapes the endpoint once.
func (s *Scrape) Read(ctx context.Context) (Sample, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL, nil)
	if err != nil {
		return Sample{}, err
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4") // the text format: every endpoint serves it
	resp, err := s.client.Do(req)
	if err != nil {
		return Sample{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Sample{}, fmt.Errorf("%s: HTTP %s", s.shown, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(io.LimitReader(resp.Body, maxScrapeBytes))
	if err != nil {
		return Sample{}, fmt.Errorf("%s: not the Prometheus text format: %w", s.shown, err)
	}
	cpu, ok1 := value(fams["process_cpu_seconds_total"])
	rss, ok2 := value(fams["process_resident_memory_bytes"])
	if !ok1 || !ok2 {
		return Sample{}, fmt.Errorf("%s: no process_cpu_seconds_total and process_resident_memory_bytes (the server exports no process metrics)", s.shown)
	}
	return Sample{CPUSeconds: cpu, RSSBytes: int64(rss)}, nil
}

// value is the first sample of a counter, gauge or untyped family.
func value(f *dto.MetricFamily) (float64, bool) {
	if f == nil || len(f.GetMetric()) == 0 {
		return 0, false
	}
	m := f.GetMetric()[0]
	switch {
	case m.Counter != nil:
		return m.GetCounter().GetValue(), true
	case m.Gauge != nil:
		return m.GetGauge().GetValue(), true
	case m.Untyped != nil:
		return m.GetUntyped().GetValue(), true
	}
	return 0, false
}
