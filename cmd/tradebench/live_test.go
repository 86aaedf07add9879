package main

import (
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tradebench/tradebench/driver/live"
	"github.com/tradebench/tradebench/driver/recorder"
	"github.com/tradebench/tradebench/report"
)

// serveSmall loads a small StockTrader data set (50 accounts, 20 quotes) and serves it with its
// metrics endpoint, in a process of its own stopped at the test's end; it returns the base URL
// and the metrics URL.
func serveSmall(t *testing.T) (base, metricsURL string) {
	t.Helper()
	db := "sqlite:" + filepath.Join(t.TempDir(), "trade.db")
	mustRun(t, "load", "--db", db, "--accounts", "50", "--quotes", "20", "--progress", "off")
	s, m := serveCmd(t, regexp.MustCompile(`url=(http://\S+)/trade/ .*metrics=(\S+)`),
		"serve", "--db", db, "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0")
	t.Cleanup(func() { s.stop(t) })
	return m[1], m[2]
}

// requirePrometheus returns the Prometheus server binary (Debian's package prometheus), skipping
// the test without one — unless CI is set: CI must never skip, so there the test fails.
func requirePrometheus(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no prometheus binary (apt-get install prometheus); CI is set, so this test may not be skipped")
		}
		t.Skip("no prometheus binary (apt-get install prometheus)")
	}
	return p
}

// freeAddr is a loopback address no one listens on now (the driver's endpoint must be in
// Prometheus' configuration before the driver opens it).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// scrapeInterval is the test Prometheus' scrape interval: short, so a 10-second run has many
// samples.
const scrapeInterval = 500 * time.Millisecond

// startPrometheus runs a real Prometheus on a loopback port scraping targets (job name →
// host:port; every target gets a tier label equal to its job, as deploy/prometheus does) and
// returns its base URL once it is ready.
func startPrometheus(t *testing.T, targets map[string]string) string {
	t.Helper()
	bin := requirePrometheus(t)
	dir := t.TempDir()
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "global:\n  scrape_interval: %s\n  scrape_timeout: 400ms\nscrape_configs:\n", scrapeInterval)
	for job, addr := range targets {
		fmt.Fprintf(&cfg, "  - job_name: %s\n    static_configs:\n      - targets: [%q]\n        labels: {tier: %s}\n", job, addr, job)
	}
	conf := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(conf, []byte(cfg.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	cmd := exec.Command(bin, "--config.file="+conf, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	logf, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("prometheus log:\n%s", b)
		}
	})
	base := "http://" + addr
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := http.Get(base + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus not ready within a minute: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

type promSample struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
	Values [][2]any          `json:"values"`
}

func (s promSample) float(t *testing.T, v [2]any) float64 {
	f, err := strconv.ParseFloat(v[1].(string), 64)
	if err != nil {
		t.Fatalf("sample %v: %v", v, err)
	}
	return f
}

// promAPI asks Prometheus' HTTP API; path is /api/v1/query or /api/v1/query_range.
func promAPI(t *testing.T, base, path string, args url.Values) []promSample {
	t.Helper()
	resp, err := http.Get(base + path + "?" + args.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []promSample `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Status != "success" {
		t.Fatalf("prometheus %s %v: %v %s", path, args, err, out.Error)
	}
	return out.Data.Result
}

func promTime(at time.Time) string {
	return strconv.FormatFloat(float64(at.UnixMilli())/1000, 'f', 3, 64)
}

// promScalar is the one value of an instant query at a time.
func promScalar(t *testing.T, base, expr string, at time.Time) float64 {
	t.Helper()
	res := promAPI(t, base, "/api/v1/query", url.Values{"query": {expr}, "time": {promTime(at)}})
	if len(res) != 1 {
		t.Fatalf("%s at %v: %d series, want 1: %+v", expr, at, len(res), res)
	}
	return res[0].float(t, res[0].Value)
}

// windowSums is the smallest and largest sum of k consecutive seconds of the series.
func windowSums(series []report.SeriesPoint, k int) (lo, hi float64) {
	lo = math.Inf(1)
	for i := 0; i+k <= len(series); i++ {
		var s float64
		for _, p := range series[i : i+k] {
			s += p.TPS
		}
		lo, hi = min(lo, s), max(hi, s)
	}
	return lo, hi
}

// TestLiveMetricsInPrometheus drives a real StockTrader server with --metrics-listen while a
// real Prometheus scrapes the driver and the server every 500 ms, then asks Prometheus, through
// its HTTP API, what the results file says:
//   - the transactions: the passed-transactions counter at the end equals the results' series
//     summed, exactly (both are the same closed seconds);
//   - the transactions rate: rate() over 6 s windows in the steady state lies within what the
//     series allows for a counter that moves once a second, scraped every 500 ms (a window
//     holds between 4 and 7 of the series' seconds, and rate() extrapolates over at most one
//     scrape interval at each end);
//   - a latency quantile: histogram_quantile(0.9) falls in the bucket that holds the results'
//     exact p90, up to the transactions of the run's last partial second (which the results
//     count and no closed second has) and the histogram's 1 % placement;
//   - the Grafana dashboards: every metric their queries name was scraped from the driver or
//     the server.
//
// Mutants (applied together, each failing its own check): the pass counter fed the failures
// fails the total and the rate; latencies placed by the HDR bucket's upper end in units of
// 10 µs as seconds fail the quantile. Before the errors rule and the check-failure series were
// exported from a run's start, the names check failed on both (they had no series yet).
func TestLiveMetricsInPrometheus(t *testing.T) {
	requirePrometheus(t)
	dir := t.TempDir()
	base, metricsURL := serveSmall(t)
	sutAddr := strings.TrimSuffix(strings.TrimPrefix(metricsURL, "http://"), "/metrics")
	driverAddr := freeAddr(t)
	prom := startPrometheus(t, map[string]string{"driver": driverAddr, "monolith": sutAddr})

	// the server is being scraped before the run starts
	deadline := time.Now().Add(time.Minute)
	for len(promAPI(t, prom, "/api/v1/query", url.Values{"query": {`up{job="monolith"} == 1`}})) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("prometheus never scraped the server")
		}
		time.Sleep(200 * time.Millisecond)
	}
	out := filepath.Join(dir, "r.json")
	const linger = 3 * time.Second
	if code := runMain([]string{"drive", "--target", base, "--scenario", "buysell", "--set", "users=50", "--set", "quotes=20",
		"--users", "2", "--think", "0", "-d", "10s", "--progress", "off", "--out", out, "--no-report",
		"--metrics-listen", driverAddr, "--live-linger", linger.String()}); code != 0 {
		t.Fatalf("drive: exit %d", code)
	}
	ended := time.Now()
	res, err := report.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// during the linger the endpoint served the final numbers; after it, scrapes fail and the
	// series go stale, so the end is read a second before the drive returned
	at := ended.Add(-time.Second)

	var seriesPass float64
	for _, p := range res.Series {
		seriesPass += p.TPS
	}
	if seriesPass == 0 {
		t.Fatalf("no transactions passed: %+v", res.Total)
	}
	if got := promScalar(t, prom, `sum(tradebench_driver_transactions_total{outcome="pass"})`, at); got != seriesPass {
		t.Errorf("Prometheus: %v transactions passed; the results' series: %v", got, seriesPass)
	}

	// the rate, in 6 s windows wholly inside the run
	const w = 6
	lo, _ := windowSums(res.Series, w-2)
	_, hi := windowSums(res.Series, w+1)
	low, high := lo/w, hi/(w-2*scrapeInterval.Seconds())
	start := res.StartedAt.Add((w + 1) * time.Second)
	rates := promAPI(t, prom, "/api/v1/query_range", url.Values{
		"query": {fmt.Sprintf(`sum(rate(tradebench_driver_transactions_total{outcome="pass"}[%ds]))`, w)},
		"start": {promTime(start)}, "end": {promTime(res.EndedAt.Add(-scrapeInterval))}, "step": {"1"}})
	if len(rates) != 1 || len(rates[0].Values) < 2 {
		t.Fatalf("rate over the run: %+v", rates)
	}
	for _, v := range rates[0].Values {
		if r := rates[0].float(t, v); r < low || r > high {
			t.Errorf("rate at %v: %.1f/s; the series allows %.1f to %.1f (results: %.1f TPS)", v[0], r, low, high, res.Total.TPS)
		}
	}

	// the 90th percentile
	est := promScalar(t, prom, `histogram_quantile(0.9, sum by (le) (tradebench_driver_transaction_duration_seconds_bucket))`, at)
	bLo, bHi := live.BucketOf(est)
	merged := recorder.NewHistogram()
	for _, tx := range res.Transactions {
		h, err := hdr.Decode([]byte(tx.Histogram))
		if err != nil {
			t.Fatal(err)
		}
		merged.Merge(h)
	}
	eps := math.Abs(float64(res.Total.Pass)-seriesPass)/float64(res.Total.Pass) + 0.005
	below := func(sec float64) float64 { // the results' share of samples at or below sec
		var n int64
		for _, b := range merged.Distribution() {
			if float64(b.To) <= sec*1e6 {
				n += b.Count
			}
		}
		return float64(n) / float64(merged.TotalCount())
	}
	if f := below(bLo * 0.99); f > 0.9+eps {
		t.Errorf("p90 from Prometheus %.4fs (bucket %g–%g s), but the results hold %.3f of samples below %g s (results p90 %.2f ms, tolerance %.3f)", est, bLo, bHi, f, bLo, res.Total.P90Ms, eps)
	}
	if f := below(bHi * 1.01); f < 0.9-eps {
		t.Errorf("p90 from Prometheus %.4fs (bucket %g–%g s), but the results hold only %.3f of samples up to %g s (results p90 %.2f ms, tolerance %.3f)", est, bLo, bHi, f, bHi, res.Total.P90Ms, eps)
	}

	// the dashboards name only metrics a scrape of the driver and the server has
	names := promNames(t, prom)
	for file, metrics := range dashboardMetrics(t) {
		for _, name := range metrics {
			if !slices.Contains(names, name) {
				t.Errorf("%s: a query names %s, which neither the driver nor the server exports", file, name)
			}
		}
	}
}

// promNames are the metric names Prometheus has scraped.
func promNames(t *testing.T, base string) []string {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/label/__name__/values")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data []string `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out.Data
}

// grafanaDashboard is what the test reads of a Grafana dashboard.
type grafanaDashboard struct {
	UID        string `json:"uid"`
	Title      string `json:"title"`
	Templating struct {
		List []struct {
			Name       string `json:"name"`
			Definition string `json:"definition"`
		} `json:"list"`
	} `json:"templating"`
	Panels []struct {
		Title   string `json:"title"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

// metricName finds the metric names in a PromQL expression: the identifiers of the kit's
// families (tradebench_*, go_*, process_*).
var metricName = regexp.MustCompile(`\b(?:tradebench|go|process)_[a-zA-Z0-9_]+`)

// dashboardMetrics reads deploy/grafana/*.json and returns, per file, every metric name its
// queries (and its variables' queries) use. A file that is not a dashboard fails the test.
func dashboardMetrics(t *testing.T) map[string][]string {
	t.Helper()
	files, err := filepath.Glob("../../deploy/grafana/*.json")
	if err != nil || len(files) < 2 {
		t.Fatalf("deploy/grafana: %v %v, want the load and the system-under-test dashboards", files, err)
	}
	out := map[string][]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var d grafanaDashboard
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatalf("%s: not JSON: %v", f, err)
		}
		if d.UID == "" || d.Title == "" || len(d.Panels) == 0 {
			t.Errorf("%s: uid %q, title %q, %d panels: not an importable dashboard", f, d.UID, d.Title, len(d.Panels))
		}
		var exprs []string
		for _, p := range d.Panels {
			if len(p.Targets) == 0 {
				t.Errorf("%s: panel %q has no query", f, p.Title)
			}
			for _, q := range p.Targets {
				if !metricName.MatchString(q.Expr) {
					t.Errorf("%s: panel %q: query %q names no metric of the kit", f, p.Title, q.Expr)
				}
				exprs = append(exprs, q.Expr)
			}
		}
		for _, v := range d.Templating.List {
			exprs = append(exprs, v.Definition)
		}
		for _, e := range exprs {
			for _, n := range metricName.FindAllString(e, -1) {
				if !slices.Contains(out[f], n) {
					out[f] = append(out[f], n)
				}
			}
		}
	}
	return out
}
