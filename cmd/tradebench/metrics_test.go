package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/trade/web"
)

// scrape reads a Prometheus endpoint.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("scrape %s: %v", url, err)
	}
	return fams
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// counter sums a family's counters whose labels include want.
func counter(fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	var sum float64
	for _, m := range fams[name].GetMetric() {
		ok := true
		for k, v := range want {
			ok = ok && label(m, k) == v
		}
		if ok {
			sum += m.GetCounter().GetValue()
		}
	}
	return sum
}

// TestMetricsDuringARun serves the monolith with its metrics endpoint, drives it with
// --sut-metrics pointed there, and checks what a published result relies on: the SUT series
// came from the scrape, the disclosure is filled, the server's counters moved, and a burst of
// random URLs adds no series.
func TestMetricsDuringARun(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "trade.db")
	mustRun(t, "load", "--db", db, "--accounts", "50", "--quotes", "20", "--progress", "off")
	s, m := serveCmd(t, regexp.MustCompile(`url=(http://\S+)/trade/ .*metrics=(\S+)`),
		"serve", "--db", db, "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0")
	base, metricsURL := m[1], m[2]
	defer s.stop(t)

	out := filepath.Join(dir, "r.json")
	if code := runMain([]string{"drive", "--target", base, "--scenario", "buysell", "--set", "users=50", "--set", "quotes=20",
		"--users", "2", "--think", "0", "-d", "3s", "--progress", "off", "--sut-metrics", metricsURL, "--out", out}); code != 0 {
		t.Fatalf("drive: exit %d", code)
	}
	res, err := report.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if res.SUT == nil || len(res.SUT.Processes) != 1 {
		t.Fatalf("sut: %+v, want the one scraped server", res.SUT)
	}
	p := res.SUT.Processes[0]
	if p.Source != metricsURL || len(p.Series) < 2 || p.PeakRSSBytes <= 0 || p.CPUSeconds <= 0 {
		t.Errorf("scraped server: %+v", p)
	}
	d := res.Disclosure
	if d == nil {
		t.Fatal("no disclosure")
	}
	var conf map[string]any
	if json.Unmarshal(d.Configuration, &conf) != nil || conf["roles"] == nil {
		t.Errorf("disclosure configuration %s: want the server's /trade/config.json", d.Configuration)
	}
	if d.Hardware.Cores != runtime.NumCPU() || d.Hardware.CPUModel == "" || d.OS.Kernel == "" || len(d.Workload.ScenarioHash) != 64 ||
		d.Workload.Users != 2 || d.Workload.Phases.SteadySeconds != 3 || d.RunRules.MeasuredWindow == "" || d.RunRules.ErrorsAre == "" {
		t.Errorf("disclosure: %+v", d)
	}

	fams := scrape(t, metricsURL)
	for _, route := range []string{"/daytrader/app?action=login", "/daytrader/app?action=buy", "/daytrader/app?action=portfolio"} {
		if n := counter(fams, "tradebench_requests_total", map[string]string{"route": route, "code": "200"}); n < 1 {
			t.Errorf("requests_total{route=%q,code=200} = %v after a buysell run", route, n)
		}
	}
	placed := counter(fams, "tradebench_orders_placed_total", map[string]string{"mode": "sync"})
	done := counter(fams, "tradebench_orders_completed_total", nil) + counter(fams, "tradebench_orders_cancelled_total", nil)
	if placed < 2 || placed != done {
		t.Errorf("orders: %v placed, %v completed or cancelled; in sync mode every order is final when placed", placed, done)
	}
	for _, name := range []string{"process_cpu_seconds_total", "process_resident_memory_bytes", "go_goroutines", "tradebench_request_duration_seconds", "tradebench_order_lag_seconds"} {
		if fams[name] == nil {
			t.Errorf("no %s", name)
		}
	}

	// a stranger's burst of random URLs, paths and DayTrader actions
	before := len(fams["tradebench_requests_total"].GetMetric())
	for i := range 100 {
		for _, u := range []string{fmt.Sprintf("/random/%d/x", i), fmt.Sprintf("/daytrader/app?action=random%d", i)} {
			resp, err := http.Get(base + u)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
	}
	after := scrape(t, metricsURL)["tradebench_requests_total"].GetMetric()
	routes := web.Routes()
	for _, m := range after {
		if r := label(m, "route"); !slices.Contains(routes, r) || strings.Contains(r, "random") {
			t.Errorf("series with route %q", r)
		}
	}
	if len(after) > before+3 {
		t.Errorf("200 random URLs grew requests_total from %d to %d series", before, len(after))
	}
}

// TestScenarioHashFollowsTheFile: two scenario files that differ in one character have
// different hashes in the disclosure, each the file's sha256.
func TestScenarioHashFollowsTheFile(t *testing.T) {
	srv := newOKServer(t)
	dir := t.TempDir()
	var hashes []string
	for i, think := range []string{"0s", "0.001s"} {
		body := "name: hashed\nthink: " + think + "\nflow:\n  - request: {name: home, url: /}\n"
		file := filepath.Join(dir, fmt.Sprintf("s%d.yaml", i))
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, fmt.Sprintf("r%d.json", i))
		if code := runMain([]string{"drive", "--target", srv, "--scenario", file, "--users", "1", "-d", "300ms", "--progress", "off", "--out", out}); code != 0 {
			t.Fatalf("drive: exit %d", code)
		}
		res, err := report.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(body))
		if got := res.Disclosure.Workload.ScenarioHash; got != hex.EncodeToString(sum[:]) {
			t.Errorf("scenario %d: hash %s, want the file's sha256 %x", i, got, sum)
		}
		hashes = append(hashes, res.Disclosure.Workload.ScenarioHash)
	}
	if hashes[0] == hashes[1] {
		t.Error("two different scenarios have the same hash")
	}
}

func newOKServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestMetricsListenRefusals: every server command refuses an address it could never bind,
// naming the flag, before starting anything.
func TestMetricsListenRefusals(t *testing.T) {
	for _, cmd := range [][]string{{"serve"}, {"wstest", "serve"}, {"cacheperf", "serve", "--db", "sqlite:x.db"}} {
		for _, bad := range []string{"9464", "localhost:port", "host:99999"} {
			r := tb(t, append(cmd, "--metrics-listen", bad)...)
			if r.code != 2 || !strings.Contains(r.stderr, "--metrics-listen") {
				t.Errorf("%v --metrics-listen %s: exit %d, want 2 naming the flag\n%s", cmd, bad, r.code, r.stderr)
			}
		}
	}
}
