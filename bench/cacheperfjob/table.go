package cacheperfjob

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"text/tabwriter"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tradebench/tradebench/cacheperf"
	"github.com/tradebench/tradebench/driver/recorder"
	"github.com/tradebench/tradebench/internal/bytesize"
	"github.com/tradebench/tradebench/report"
)

// The process's memory readings; tests replace them.
var (
	readRSS      = cacheperf.ReadRSS
	resetPeakRSS = cacheperf.ResetPeakRSS
)

func newHist() *hdr.Histogram { return recorder.NewHistogram() }

func summarize(h *hdr.Histogram, pass, fail, stop int64, steady float64) report.Transaction {
	t := recorder.Summarize("total", h, pass, fail, stop, steady)
	t.Histogram = ""
	return t
}

// label names the point as its progress line does: "cache@500", "mix@1500", "baseline".
func (p Point) label() string {
	if p.Keys > 0 {
		return p.Phase + "@" + strconv.Itoa(p.Keys)
	}
	return p.Phase
}

func (p Point) line() string {
	switch p.Phase {
	case "baseline":
		return fmt.Sprintf("baseline hello: %.0f tps, p50 %.2fms p99 %.2fms, peak RSS %s (ceiling %s)%s", p.TPS, p.P50Ms, p.P99Ms, peakRSS(p), bytesize.Format(p.Ceiling), overMark(p))
	case "mix":
		return fmt.Sprintf("mix@%d: cache %.0f tps + other work %.0f tps = %.0f tps, hit ratio %.1f%%, peak RSS %s (ceiling %s)%s",
			p.Keys, p.ItemTPS, p.OtherTPS, p.TPS, 100*p.HitRatio, peakRSS(p), bytesize.Format(p.Ceiling), overMark(p))
	}
	return fmt.Sprintf("cache@%d: %.0f tps, hit ratio %.1f%%, p50 %.2fms p90 %.2fms p99 %.2fms, peak RSS %s (Go %s, ceiling %s)%s",
		p.Keys, p.TPS, 100*p.HitRatio, p.P50Ms, p.P90Ms, p.P99Ms, peakRSS(p), bytesize.Format(p.PeakGo), bytesize.Format(p.Ceiling), overMark(p))
}

// peakRSS formats a point's peak RSS, starred when it is only sampled (see sampledNote).
func peakRSS(p Point) string {
	if p.PeakSource == PeakSampled {
		return bytesize.Format(p.PeakRSS) + "*"
	}
	return bytesize.Format(p.PeakRSS)
}

const sampledNote = "* sampled peak RSS: the kernel refused to reset its high-water mark, which would have been the whole process's; " +
	"the largest of periodic samples may miss short spikes"

// WriteTable prints the CachePerf paper's tables from a sweep's points: unique keys against TPS (with hit
// ratio, percentiles and peak RSS), and the mix's cache / other-work / total TPS.
func WriteTable(w io.Writer, points []Point) {
	var base *Point
	var bases []Point
	var cache, mix []Point
	for _, p := range points {
		switch p.Phase {
		case "baseline":
			bases = append(bases, p)
		case "cache":
			cache = append(cache, p)
		case "mix":
			mix = append(mix, p)
		}
	}
	if len(bases) > 0 {
		// the "of hello" column compares with the mean of the runs before and after the sweep
		m := Point{Phase: "baseline"}
		for _, p := range bases {
			fmt.Fprintf(w, "\nbaseline: GET /cacheperf/hello (\"Hello, World!\") %.0f tps, p50 %.2f ms, p99 %.2f ms", p.TPS, p.P50Ms, p.P99Ms)
			m.TPS += p.TPS / float64(len(bases))
		}
		fmt.Fprintln(w)
		base = &m
	}
	if len(cache) > 0 {
		fmt.Fprintln(w, "\nCachePerf: unique keys vs throughput (item page, displayImage=false)")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		hdrLine := "unique keys\tworking set\tTPS\t"
		if base != nil {
			hdrLine += "of hello\t"
		}
		disk := false
		for _, p := range cache {
			disk = disk || p.DiskHits > 0
		}
		hdrLine += "hit ratio\t"
		if disk {
			hdrLine += "from disk\t"
		}
		fmt.Fprintln(tw, hdrLine+"p50 ms\tp90 ms\tp99 ms\terrors\tpeak RSS\tceiling\t")
		for _, p := range cache {
			row := fmt.Sprintf("%d\t%s\t%.0f\t", p.Keys, bytesize.Format(p.WorkingSet), p.TPS)
			if base != nil && base.TPS > 0 {
				row += fmt.Sprintf("%.0f%%\t", 100*p.TPS/base.TPS)
			}
			row += fmt.Sprintf("%.1f%%\t", 100*p.HitRatio)
			if disk {
				row += fmt.Sprintf("%.1f%%\t", 100*float64(p.DiskHits)/float64(max(p.Hits+p.Misses, 1)))
			}
			fmt.Fprintf(tw, "%s%.2f\t%.2f\t%.2f\t%d\t%s\t%s%s\t\n", row, p.P50Ms, p.P90Ms, p.P99Ms, p.Errors,
				peakRSS(p), bytesize.Format(p.Ceiling), overMark(p))
		}
		tw.Flush()
	}
	if len(mix) > 0 {
		fmt.Fprintln(w, "\nCachePerf mix: cache transactions and other work")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "unique keys\tcache TPS\tother work TPS\ttotal TPS\thit ratio\tcache p99 ms\terrors\tpeak RSS\tceiling\t")
		for _, p := range mix {
			fmt.Fprintf(tw, "%d\t%.0f\t%.0f\t%.0f\t%.1f%%\t%.2f\t%d\t%s\t%s%s\t\n", p.Keys, p.ItemTPS, p.OtherTPS, p.TPS, 100*p.HitRatio, p.P99Ms, p.Errors,
				peakRSS(p), bytesize.Format(p.Ceiling), overMark(p))
		}
		tw.Flush()
	}
	if slices.ContainsFunc(points, func(p Point) bool { return p.PeakSource == PeakSampled }) {
		fmt.Fprintln(w, "\n"+sampledNote)
	}
}

func overMark(p Point) string {
	if p.WithinCeil {
		return ""
	}
	return " OVER"
}
