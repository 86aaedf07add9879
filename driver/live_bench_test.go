package driver

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// liveScraped turns on the live metrics of a benchmark's drive and scrapes them each second
// from inside the driver's process, as a Prometheus with a 1 s interval would: the cost
// measured is the per-transaction bookkeeping, the per-second exporter and serving the scrapes.
func liveScraped(cfg *Config) {
	cfg.MetricsListen = "127.0.0.1:0"
	cfg.OnLive = func(metricsURL, _ string) {
		go func() {
			for range time.Tick(time.Second) {
				resp, err := http.Get(metricsURL)
				if err != nil {
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
}

// BenchmarkLiveMetricsCost is the driver's requests per CPU-second in quick mode without and
// with --metrics-listen (scraped every second), in alternating rounds against the same trivial
// server (a process of its own): the live metrics must not move the driver's efficiency by more
// than a few percent. TB_WRK_C, TB_WRK_D and TB_WRK_ROUNDS (default 50 connections, 5 s, 6
// rounds) adjust it. docs/benchmarks.md has the numbers.
func BenchmarkLiveMetricsCost(b *testing.B) {
	conns, secs, rounds := envInt("TB_WRK_C", 50), envInt("TB_WRK_D", 5), envInt("TB_WRK_ROUNDS", 6)
	url := serverChild(b)
	drive := func(live string) float64 {
		drv, dout := child(b, "TB_CHILD=drive", "TB_URL="+url, "TB_C="+strconv.Itoa(conns), "TB_D="+strconv.Itoa(secs)+"s", "TB_LIVE="+live)
		line, _ := dout.ReadString('\n')
		if err := drv.Wait(); err != nil || strings.HasPrefix(line, "ERR") {
			b.Fatalf("driver: %q %v", line, err)
		}
		n, _ := strconv.ParseFloat(strings.TrimSpace(line), 64)
		return n / cpuSeconds(drv.ProcessState)
	}
	var off, on, paired []float64
	b.ResetTimer()
	for r := 0; r < rounds; r++ {
		// the order alternates, so whichever runs second in a round (a warmer server, a busier
		// machine) is not always the same
		var a, l float64
		if r%2 == 0 {
			a, l = drive("0"), drive("1")
		} else {
			l, a = drive("1"), drive("0")
		}
		off, on, paired = append(off, a), append(on, l), append(paired, l/a)
		b.Logf("round %d: without %.0f req/CPU-s, with live metrics %.0f req/CPU-s: %.3f", r+1, a, l, l/a)
	}
	b.StopTimer()
	b.ReportMetric(median(off), "off-req/CPU-s")
	b.ReportMetric(median(on), "live-req/CPU-s")
	b.ReportMetric(100*median(paired), "%-of-off-paired")
}
