// Package live lets a run be watched while it runs: the driver's metrics for Prometheus (a
// /metrics endpoint, --metrics-listen) and the live dashboard (the HTML report drawing itself,
// --dashboard). Both are fed once a second from the load engine's closed second (a
// load.Watcher), the same second the results file's series gets: nothing here measures on its
// own, so what Prometheus shows is what the results will say, and the cost to the run is a
// map lookup and a few counts per transaction (the latencies are the series' own histograms)
// plus one pass over the second's data.
package live

import (
	"math"
	"sync"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tradebench/tradebench/driver/load"
	"github.com/tradebench/tradebench/driver/recorder"
	"github.com/tradebench/tradebench/internal/metrics"
	"github.com/tradebench/tradebench/report"
)

// Subsystem prefixes every driver metric: tradebench_driver_….
const Subsystem = "driver"

// Buckets are the transaction latency histogram's bounds in seconds. The histogram is a classic
// one (fixed buckets), not a native one: classic buckets work with every Prometheus server and
// Grafana as they are, and histogram_quantile reads them, while native histograms need a feature
// flag on servers before 3.x (Debian 12's Prometheus is 2.42). The bounds grow by at most 2×
// (mostly 1.5×) from 100 µs to a minute, so a quantile read from them is within one bucket of
// the exact HDR percentile the results file gives.
var Buckets = []float64{0.0001, 0.00025, 0.0005, 0.00075, 0.001, 0.0015, 0.002, 0.003, 0.005, 0.0075,
	0.01, 0.015, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 7.5, 10, 20, 30, 60}

// Phases are the values of the phase metric's label.
var Phases = []string{"ramp-up", "steady", "ramp-down", "done"}

// Metrics is a run's live metrics: a registry with the Go and process collectors of the driver
// itself (its own CPU shows whether the driver is the bottleneck) and the run's numbers. In a
// distributed run the controller's Metrics is fed the fleet's merged seconds and each agent's
// its own. Safe for one feeding goroutine and any number of scrapes.
type Metrics struct {
	reg *metrics.Registry

	transactions *prometheus.CounterVec
	checks       *prometheus.CounterVec
	users        prometheus.Gauge
	dropped      prometheus.Counter
	late         prometheus.Counter
	requests     prometheus.Counter
	bytes        prometheus.Counter
	phase        *prometheus.GaugeVec
	errorRatio   prometheus.Gauge
	verdict      *prometheus.GaugeVec
	latency      *latency

	thresholds []report.Threshold
	errorLimit float64 // the errors rule's limit
	// totals so far, for the counters fed from totals
	lastBytes, lastDropped, lastLate int64
	// the measured window so far, for the verdict
	steady     report.Results
	steadyHist *hdr.Histogram
	steadySecs int
}

// DefaultMaxErrorRate is the errors rule's limit when the run sets no max_error_rate threshold:
// 0.01 %, the 2007 paper's criterion (and run's default).
const DefaultMaxErrorRate = 0.0001

// ErrorsRule is the verdict metric's rule label of the errors rule, exported for every run.
const ErrorsRule = "errors"

// New returns the live metrics of a run judged by thresholds: the verdict so far is exported
// for the errors rule always (the run's max_error_rate, else DefaultMaxErrorRate) and for each
// threshold under its name.
func New(thresholds []report.Threshold) *Metrics {
	const ns, sub = metrics.Namespace, Subsystem
	m := &Metrics{reg: metrics.NewRegistry(), thresholds: thresholds, errorLimit: DefaultMaxErrorRate, steadyHist: recorder.NewSeriesHistogram()}
	for _, t := range thresholds {
		if t.Name == report.MaxErrorRate(0).Name {
			m.errorLimit = t.Limit
		}
	}
	m.transactions = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "transactions_total",
		Help: "Transactions ended, by transaction name and outcome (pass, fail, stop: cut off by the end of the run), every phase."}, []string{"transaction", "outcome"})
	m.checks = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "check_failures_total",
		Help: "Failed transactions whose failure was a content check (contains, not_contains, regex, min_bytes), by transaction."}, []string{"transaction"})
	m.users = prometheus.NewGauge(prometheus.GaugeOpts{Namespace: ns, Subsystem: sub, Name: "active_users",
		Help: "Running virtual users (closed model) or iterations in flight (open model) at the end of the last second."})
	m.dropped = prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "arrivals_dropped_total",
		Help: "Open model: measured-window arrivals dropped because the in-flight cap was reached."})
	m.late = prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "arrivals_late_total",
		Help: "Open model: measured-window arrivals started more than 10 ms after their intended time."})
	m.requests = prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "requests_total",
		Help: "HTTP requests sent (hits; a redirect followed is one more), every phase."})
	m.bytes = prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Subsystem: sub, Name: "response_bytes_total",
		Help: "Response body bytes received, every phase."})
	m.phase = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Subsystem: sub, Name: "phase",
		Help: "The run's phase: 1 for the current one (ramp-up, steady, ramp-down, done), 0 for the others."}, []string{"phase"})
	m.errorRatio = prometheus.NewGauge(prometheus.GaugeOpts{Namespace: ns, Subsystem: sub, Name: "error_ratio",
		Help: "Failed / (passed + failed) transactions of the measured window so far (the errors rule of the verdict)."})
	m.verdict = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Subsystem: sub, Name: "verdict",
		Help: "The verdict so far on the measured window so far: 1 passing, 0 failing; rule errors (the error rate within the run's max_error_rate, else 0.01%) always, and each threshold of the run by name (max_error_rate, max_p90_ms, max_p99_ms, min_tps)."}, []string{"rule"})
	m.latency = &latency{desc: prometheus.NewDesc(prometheus.BuildFQName(ns, sub, "transaction_duration_seconds"),
		"Latency of passed transactions, by transaction (from the intended start in the open model), every phase; a classic histogram.",
		[]string{"transaction"}, nil), by: map[string]*buckets{}}
	for _, p := range Phases {
		m.phase.WithLabelValues(p).Set(0)
	}
	m.verdict.WithLabelValues(ErrorsRule).Set(1) // nothing measured, nothing failed
	m.reg.MustRegister(m.transactions, m.checks, m.users, m.dropped, m.late, m.requests, m.bytes, m.phase, m.errorRatio, m.verdict, m.latency)
	return m
}

// Registry is the metrics' registry, to serve (metrics.Listen) or read in a test.
func (m *Metrics) Registry() *metrics.Registry { return m.reg }

// Second counts one closed second. It implements load.Watcher.
func (m *Metrics) Second(s *load.Second) {
	p := s.Point
	if s.Tx != nil {
		for _, t := range s.Tx {
			m.addTx(t.Name, t.Pass, t.Fail, t.Stop, t.Hist)
			if t.CheckFailures > 0 {
				m.checks.WithLabelValues(t.Name).Add(float64(t.CheckFailures))
			}
		}
	} else {
		// only the totals are known (a fleet controller): one series for the whole mix
		m.addTx(AllTransactions, int64(p.TPS), p.Errors, 0, s.Hist)
	}
	m.users.Set(float64(p.Users))
	m.requests.Add(float64(p.Hits))
	m.bytes.Add(float64(max(s.Bytes-m.lastBytes, 0)))
	m.dropped.Add(float64(max(s.Dropped-m.lastDropped, 0)))
	m.late.Add(float64(max(s.Late-m.lastLate, 0)))
	m.lastBytes, m.lastDropped, m.lastLate = s.Bytes, s.Dropped, s.Late
	m.setPhase(p.Phase)
	if p.Phase == "steady" {
		m.steadySecs++
		m.steady.Total.Pass += int64(p.TPS)
		m.steady.Total.Errors += p.Errors
		m.steady.Total.Count += int64(p.TPS) + p.Errors
		if s.Hist != nil && p.TPS > 0 {
			m.steadyHist.Merge(s.Hist)
		}
		m.judge()
	}
}

// AllTransactions is the transaction label of the series a fleet controller exports: its
// agents report their seconds' totals, not each transaction's.
const AllTransactions = "all"

func (m *Metrics) addTx(name string, pass, fail, stop int64, h *hdr.Histogram) {
	m.transactions.WithLabelValues(name, "pass").Add(float64(pass))
	m.transactions.WithLabelValues(name, "fail").Add(float64(fail))
	m.transactions.WithLabelValues(name, "stop").Add(float64(stop))
	m.checks.WithLabelValues(name).Add(0) // a series from the first second: a failure shows as a rise, not a new series
	if h != nil && pass > 0 {
		m.latency.add(name, h)
	}
}

func (m *Metrics) setPhase(phase string) {
	for _, p := range Phases {
		v := 0.0
		if p == phase {
			v = 1
		}
		m.phase.WithLabelValues(p).Set(v)
	}
}

// judge evaluates the run's thresholds on the measured window so far, with the library's own
// rules (report.CheckThresholds), so the verdict so far is the verdict the results will carry if
// nothing changes.
func (m *Metrics) judge() {
	r := &m.steady
	r.SteadySeconds = float64(m.steadySecs)
	r.Total.TPS = float64(r.Total.Pass) / r.SteadySeconds
	if m.steadyHist.TotalCount() > 0 {
		r.Total.P90Ms = float64(m.steadyHist.ValueAtQuantile(90)) / 1000
		r.Total.P99Ms = float64(m.steadyHist.ValueAtQuantile(99)) / 1000
	}
	m.setErrors(r.ErrorRate())
	_ = r.CheckThresholds(m.thresholds)
	for _, t := range r.Thresholds {
		v := 0.0
		if t.Passed {
			v = 1
		}
		m.verdict.WithLabelValues(t.Name).Set(v)
	}
}

func (m *Metrics) setErrors(rate float64) {
	m.errorRatio.Set(rate)
	v := 0.0
	if rate <= m.errorLimit {
		v = 1
	}
	m.verdict.WithLabelValues(ErrorsRule).Set(v)
}

// Done marks the run over: the phase is "done" and the verdict is the final results' own.
func (m *Metrics) Done(res *report.Results) {
	m.setPhase("done")
	if res == nil {
		return
	}
	m.setErrors(res.ErrorRate())
	for _, t := range res.Thresholds {
		v := 0.0
		if t.Passed {
			v = 1
		}
		m.verdict.WithLabelValues(t.Name).Set(v)
	}
}

// latency is the per-transaction latency histogram, exported as classic histograms built from
// the seconds' HDR histograms: the client library's Histogram observes one value at a time,
// and replaying every sample of a second into it would be a second measurement path; adding
// the second's HDR buckets into fixed bounds is one pass per second instead.
type latency struct {
	desc  *prometheus.Desc
	mu    sync.Mutex
	by    map[string]*buckets
	order []string
}

type buckets struct {
	counts []uint64 // per bound of Buckets (not cumulative), then +Inf
	count  uint64
	sum    float64 // seconds
}

// add adds a second's histogram (microseconds) of one transaction. A value lands in the first
// bucket whose bound is at or above the middle of its HDR bucket (1% wide at 2 significant
// figures), the value HDR itself reports as the bucket's mean.
func (l *latency) add(name string, h *hdr.Histogram) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.by[name]
	if b == nil {
		b = &buckets{counts: make([]uint64, len(Buckets)+1)}
		l.by[name] = b
		l.order = append(l.order, name)
	}
	for _, bar := range h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		v := float64(bar.From+bar.To) / 2 / 1e6
		i := 0
		for i < len(Buckets) && v > Buckets[i] {
			i++
		}
		b.counts[i] += uint64(bar.Count)
		b.count += uint64(bar.Count)
		b.sum += v * float64(bar.Count)
	}
}

func (l *latency) Describe(ch chan<- *prometheus.Desc) { ch <- l.desc }

func (l *latency) Collect(ch chan<- prometheus.Metric) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, name := range l.order {
		b := l.by[name]
		cum := make(map[float64]uint64, len(Buckets))
		var n uint64
		for i, le := range Buckets {
			n += b.counts[i]
			cum[le] = n
		}
		ch <- prometheus.MustNewConstHistogram(l.desc, b.count, b.sum, cum, name)
	}
}

// BucketOf is the bucket bounds (lower, upper] in seconds that hold v seconds: what a classic
// histogram can say about a value. The upper bound of a value past the last bucket is +Inf.
func BucketOf(v float64) (lower, upper float64) {
	lower = 0
	for _, le := range Buckets {
		if v <= le {
			return lower, le
		}
		lower = le
	}
	return lower, math.Inf(1)
}
