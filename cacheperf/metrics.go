package cacheperf

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tradebench/tradebench/cacheperf/objcache"
	"github.com/tradebench/tradebench/internal/metrics"
)

// cacheCollector exposes the object cache's statistics, read at scrape time from the counters
// the cache keeps anyway: a scrape adds nothing to a cache hit.
type cacheCollector struct{ c *objcache.Cache }

func cacheDesc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(metrics.Namespace+"_cache_"+name, help, labels, nil)
}

var (
	cacheHitsDesc      = cacheDesc("hits_total", "Lookups answered by a cache tier (memory, disk, remote).", "tier")
	cacheMissesDesc    = cacheDesc("misses_total", "Lookups that went to the database (loaded whole or streamed).")
	cacheEvictionsDesc = cacheDesc("evictions_total", "Entries evicted from the memory tier to stay within its byte budget.")
	cacheEvictedDesc   = cacheDesc("evicted_bytes_total", "Accounted bytes of the entries evicted from the memory tier.")
	cacheExpiredDesc   = cacheDesc("expired_total", "Entries dropped from the memory tier when their time to live ended.")
	cacheRejectedDesc  = cacheDesc("rejected_total", "Objects never cached: heavier than the largest cacheable object.")
	cacheLoadErrDesc   = cacheDesc("load_errors_total", "Database loads that failed.")
	cacheBytesDesc     = cacheDesc("bytes", "Accounted bytes held by the memory tier.")
	cacheEntriesDesc   = cacheDesc("entries", "Entries held by the memory tier.")
	cacheDescs         = []*prometheus.Desc{cacheHitsDesc, cacheMissesDesc, cacheEvictionsDesc, cacheEvictedDesc, cacheExpiredDesc, cacheRejectedDesc, cacheLoadErrDesc, cacheBytesDesc, cacheEntriesDesc}
)

func (cc cacheCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range cacheDescs {
		ch <- d
	}
}

func (cc cacheCollector) Collect(ch chan<- prometheus.Metric) {
	s := cc.c.Stats()
	counter := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	counter(cacheHitsDesc, s.Hits, "memory")
	counter(cacheHitsDesc, s.DiskHits, "disk")
	counter(cacheHitsDesc, s.RemoteHits, "remote")
	counter(cacheMissesDesc, s.Misses)
	counter(cacheEvictionsDesc, s.Evictions)
	counter(cacheEvictedDesc, s.EvictedBytes)
	counter(cacheExpiredDesc, s.Expired)
	counter(cacheRejectedDesc, s.Rejected)
	counter(cacheLoadErrDesc, s.LoadErrors)
	ch <- prometheus.MustNewConstMetric(cacheBytesDesc, prometheus.GaugeValue, float64(s.Bytes))
	ch <- prometheus.MustNewConstMetric(cacheEntriesDesc, prometheus.GaugeValue, float64(s.Entries))
}
