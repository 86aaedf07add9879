// Package metrics is the Prometheus endpoint every tradebench server exposes (serve in every
// role, wstest serve, cacheperf serve): a registry per server, with the Go and process
// collectors, request counts and latencies by route, and whatever the server adds (order
// processing, cache statistics, the services host's calls per transport).
//
// A registry per server, not the client library's global one, so several servers in one
// process (the tests, an embedded run) each report their own numbers and never collide.
//
// The route label is bounded by construction: a server declares its routes up front and every
// request whose route is not one of them counts as "other", so a stranger who sends random
// URLs cannot grow the set of series (each series costs memory in the server and in
// Prometheus). The request path is never a label.
package metrics

import (
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
)

// Namespace prefixes every metric tradebench defines itself.
const Namespace = "tradebench"

// Other is the route label of a request outside a server's declared routes.
const Other = "other"

// Buckets are the request duration histogram's bounds in seconds: fine from 100 µs (a cached
// page or a small WSTest message on loopback) to 10 s (a stalled request).
var Buckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// Registry is one server's metrics.
type Registry struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// NewRegistry returns a registry with the Go runtime and process collectors (go_*,
// process_cpu_seconds_total, process_resident_memory_bytes, …) and the request metrics
// tradebench_requests_total{route,code} and tradebench_request_duration_seconds{route}.
func NewRegistry() *Registry {
	r := &Registry{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "requests_total",
			Help: "HTTP requests served, by route (the route pattern or DayTrader action, never the raw URL; \"other\" for anything undeclared) and status code.",
		}, []string{"route", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Name: "request_duration_seconds",
			Help:    "Time from the request reaching the handler to the handler returning, by route.",
			Buckets: Buckets,
		}, []string{"route"}),
	}
	r.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		r.requests, r.duration,
	)
	return r
}

// MustRegister adds a server's own collectors; it panics on a duplicate, a programming error.
func (r *Registry) MustRegister(cs ...prometheus.Collector) { r.reg.MustRegister(cs...) }

// Gatherer is the registry, for tests and in-process readers.
func (r *Registry) Gatherer() prometheus.Gatherer { return r.reg }

// Handler serves the registry in the Prometheus text (or protobuf, if asked) format. It serves
// one scrape at a time: a scrape reads every collector, and a flood of them must not take a
// benchmarked server's CPU.
func (r *Registry) Handler() http.Handler {
	return promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{MaxRequestsInFlight: 1, Timeout: 10 * time.Second})
}

// Router names a request's route after its handler has run (a handler may parse the form
// that carries a DayTrader action). It must return one of the routes given to Instrument;
// anything else counts as Other.
type Router func(r *http.Request) string

// Instrument wraps h so each request counts in tradebench_requests_total and
// tradebench_request_duration_seconds under route(r), one of routes (else Other). The label
// children are made here and the status-code ones once per new code, so a request costs two
// clock reads, a map lookup, an atomic add and a histogram observation, and no allocation.
func (r *Registry) Instrument(h http.Handler, routes []string, route Router) http.Handler {
	in := &instrumented{next: h, route: route, by: make(map[string]*routeStats, len(routes)+1)}
	for _, name := range append(slices.Clone(routes), Other) {
		if _, dup := in.by[name]; dup {
			continue
		}
		in.by[name] = &routeStats{name: name, dur: r.duration.WithLabelValues(name), vec: r.requests}
	}
	in.other = in.by[Other]
	in.pool.New = func() any { return new(recorder) }
	return in
}

// epoch is the origin of the request timer's monotonic readings.
var epoch = time.Now()

type instrumented struct {
	next  http.Handler
	route Router
	by    map[string]*routeStats // read-only after Instrument
	other *routeStats
	pool  sync.Pool // *recorder
}

func (in *instrumented) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	rec := in.pool.Get().(*recorder)
	rec.ResponseWriter, rec.code = w, 0
	start := time.Since(epoch) // monotonic clock only: time.Now would read the wall clock too
	in.next.ServeHTTP(rec, req)
	d := time.Since(epoch) - start
	code := rec.code
	if code == 0 {
		code = http.StatusOK // net/http's answer to a handler that wrote nothing
	}
	rec.ResponseWriter = nil
	in.pool.Put(rec)
	rs := in.other
	if s, ok := in.by[in.route(req)]; ok {
		rs = s
	}
	rs.dur.Observe(d.Seconds())
	rs.counter(code).Inc()
}

// routeStats is one route's label children.
type routeStats struct {
	name  string
	dur   prometheus.Observer
	vec   *prometheus.CounterVec
	codes atomic.Pointer[[]codeCounter] // copy on write: a route sees a handful of codes
	mu    sync.Mutex
}

type codeCounter struct {
	code int
	c    prometheus.Counter
}

func (s *routeStats) counter(code int) prometheus.Counter {
	if p := s.codes.Load(); p != nil {
		for _, cc := range *p {
			if cc.code == code {
				return cc.c
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var old []codeCounter
	if p := s.codes.Load(); p != nil {
		old = *p
		for _, cc := range old {
			if cc.code == code {
				return cc.c
			}
		}
	}
	cc := codeCounter{code: code, c: s.vec.WithLabelValues(s.name, strconv.Itoa(code))}
	n := append(slices.Clone(old), cc)
	s.codes.Store(&n)
	return cc.c
}

// recorder remembers the status code a handler sent. Unwrap lets http.ResponseController reach
// the connection underneath (flush, deadlines).
type recorder struct {
	http.ResponseWriter
	code int
}

func (w *recorder) WriteHeader(code int) {
	if w.code == 0 && code >= 200 { // 1xx are interim answers, not the status
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recorder) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush keeps a streaming handler streaming through the wrapper (http.Flusher).
func (w *recorder) Flush() {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// ReadFrom keeps io.Copy into the response on the connection's own path (sendfile, no 32 KB
// buffer per copy) through the wrapper.
func (w *recorder) ReadFrom(r io.Reader) (int64, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(writerOnly{w.ResponseWriter}, r)
}

// writerOnly hides a writer's ReadFrom, so io.Copy does not call back into it.
type writerOnly struct{ io.Writer }

// PathRouter names a request by its path when the path is one of routes, else Other: for
// servers whose routes are fixed paths.
func PathRouter(routes ...string) Router {
	set := make(map[string]struct{}, len(routes))
	for _, p := range routes {
		set[p] = struct{}{}
	}
	return func(r *http.Request) string {
		if _, ok := set[r.URL.Path]; ok {
			return r.URL.Path
		}
		return Other
	}
}

// PatternRouter names a request by the http.ServeMux pattern that served it (the mux records it
// in the request), for servers routed by a ServeMux; Instrument keeps only declared patterns.
func PatternRouter(r *http.Request) string { return r.Pattern }

// Sum adds up the current values of the metric name whose labels include every pair of want
// (nil: all of them): counters and gauges by value, histograms by their number of
// observations. It reads the registry in-process, for tests and embedded readers.
func (r *Registry) Sum(name string, want map[string]string) (float64, error) {
	fams, err := r.reg.Gather()
	if err != nil {
		return 0, err
	}
	var sum float64
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
	metric:
		for _, m := range f.GetMetric() {
			for k, v := range want {
				if !slices.ContainsFunc(m.GetLabel(), func(l *dto.LabelPair) bool { return l.GetName() == k && l.GetValue() == v }) {
					continue metric
				}
			}
			switch {
			case m.Histogram != nil:
				sum += float64(m.GetHistogram().GetSampleCount())
			case m.Gauge != nil:
				sum += m.GetGauge().GetValue()
			case m.Untyped != nil:
				sum += m.GetUntyped().GetValue()
			default:
				sum += m.GetCounter().GetValue()
			}
		}
	}
	return sum, nil
}
