package server

import (
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tradebench/tradebench/internal/metrics"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/remote/host"
	"github.com/tradebench/tradebench/trade/remote/rest"
	"github.com/tradebench/tradebench/trade/remote/soap"
)

// serviceRoutes are the route labels of the services host's HTTP listener (and of an order
// processor's REST endpoint): SOAP, REST, health, the index. gRPC calls are counted per
// operation in tradebench_service_calls_total instead.
var serviceRoutes = []string{soap.Path, rest.Prefix, "/healthz", "/"}

func serviceRoute(r *http.Request) string {
	switch p := r.URL.Path; {
	case p == soap.Path:
		return soap.Path
	case strings.HasPrefix(p, rest.Prefix):
		return rest.Prefix
	case p == "/healthz":
		return "/healthz"
	case p == "/":
		return "/"
	}
	return metrics.Other
}

// orderMetrics counts the orders of the in-process service (placed, completed, cancelled) and
// their lag from placement to a final state, labelled with the process's order mode. In the
// synchronous mode an order is final when placed, so its lag is its transaction's time; in the
// asynchronous modes it is the queue's lag.
type orderMetrics struct {
	placed, completed, cancelled prometheus.Counter
	lag                          prometheus.Observer
	vecs                         []prometheus.Collector
}

// orderLagBuckets reach from a synchronous order (a millisecond) to a backed-up queue (minutes).
var orderLagBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300}

func newOrderMetrics(mode string) *orderMetrics {
	counter := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: metrics.Namespace, Name: name, Help: help}, []string{"mode"})
	}
	placed := counter("orders_placed_total", "Orders placed (buy and sell) by this process's trade service, by order mode.")
	completed := counter("orders_completed_total",
		"Orders completed by this process's trade service (in sync mode when placed; else by the order processor), by order mode.")
	cancelled := counter("orders_cancelled_total", "Orders cancelled when processed (e.g. a sell whose holding was sold meanwhile), by order mode.")
	lag := prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: metrics.Namespace, Name: "order_lag_seconds",
		Help:    "Time from an order's placement to its completion or cancellation (the queue's lag in the asynchronous modes), by order mode.",
		Buckets: orderLagBuckets}, []string{"mode"})
	return &orderMetrics{
		placed: placed.WithLabelValues(mode), completed: completed.WithLabelValues(mode),
		cancelled: cancelled.WithLabelValues(mode), lag: lag.WithLabelValues(mode),
		vecs: []prometheus.Collector{placed, completed, cancelled, lag},
	}
}

func (m *orderMetrics) Placed(trade.Order) { m.placed.Inc() }

func (m *orderMetrics) Finished(o trade.Order) {
	if o.Status == trade.StatusCancelled {
		m.cancelled.Inc()
	} else {
		m.completed.Inc()
	}
	if !o.CompletionDate.IsZero() && !o.OpenDate.IsZero() {
		m.lag.Observe(max(o.CompletionDate.Sub(o.OpenDate).Seconds(), 0))
	}
}

// malformedCounters count the messages dropped as malformed on the broker's subjects: on the
// order subjects (the order processor, if this process runs one) and on the quote subjects
// (this web tier's bridge). A broker reached by strangers shows here, not as a log flood.
func (s *Server) malformedCounters() []prometheus.Collector {
	help := "Messages dropped as malformed on the NATS subjects this process consumes, by subjects (orders, quotes)."
	name := metrics.Namespace + "_malformed_messages_total"
	cs := []prometheus.Collector{prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help,
		ConstLabels: prometheus.Labels{"subjects": "quotes"}}, func() float64 { return float64(s.badQuotes.Load()) })}
	if s.ord != nil && s.ord.Processor != nil {
		p := s.ord.Processor
		cs = append(cs, prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help,
			ConstLabels: prometheus.Labels{"subjects": "orders"}}, func() float64 { return float64(p.Malformed()) }))
	}
	return cs
}

// callsCollector exposes a services host's per-transport call counts (host.Calls) as
// tradebench_service_calls_total{transport,op}, read at scrape time: counting stays one atomic
// add per call.
type callsCollector struct{ calls *host.Calls }

var serviceCallsDesc = prometheus.NewDesc(metrics.Namespace+"_service_calls_total",
	"Calls the services host passed to the trade service, by transport (soap, rest, grpc) and operation.",
	[]string{"transport", "op"}, nil)

func (c callsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- serviceCallsDesc }

func (c callsCollector) Collect(ch chan<- prometheus.Metric) {
	for _, n := range c.calls.Counts() {
		ch <- prometheus.MustNewConstMetric(serviceCallsDesc, prometheus.CounterValue, float64(n.Calls), n.Transport, n.Operation)
	}
}
