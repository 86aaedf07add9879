package htmlreport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/tradebench/tradebench/internal/testing/headless"
	"github.com/tradebench/tradebench/report"
)

// hostile is text a results file could carry (a transaction name, an error example) that would
// run script if a page inserted it unescaped.
const hostile = `</script><script>document.title="pwned"</script><img src=x onerror=alert(1)>`

// sample is a results file with every section filled, as a run with a peak search, SUT
// sampling, disclosure, pricing and agents writes it.
func sample(tps float64) *report.Results {
	r := report.New("stocktrader")
	r.Scenario, r.Target = "stocktrader", "http://127.0.0.1:8080"
	r.StartedAt = time.Date(2026, 11, 24, 6, 0, 0, 0, time.UTC)
	r.EndedAt = r.StartedAt.Add(40 * time.Second)
	r.Settings = report.Settings{Model: report.ModelClosed, Users: 50, Think: "1s", Params: map[string]string{"users": "5000"}}
	r.System = &report.System{Go: "go1.26.8", OS: "linux", Arch: "amd64", CPUs: 2, GOMAXPROCS: 2}
	r.Phases = report.Phases{RampUpSeconds: 5, SteadySeconds: 30, RampDownSeconds: 5}
	r.SteadySeconds = 30
	r.Transactions = []report.Transaction{
		{Name: "login", Count: 300, Pass: 300, TPS: tps / 2, MinMs: 1, MeanMs: 3, P50Ms: 2.5, P90Ms: 5, P95Ms: 6, P99Ms: 9, P999Ms: 12, MaxMs: 15},
		{Name: hostile, Count: 300, Pass: 299, Errors: 1, TPS: tps / 2, MinMs: 2, MeanMs: 4, P50Ms: 3, P90Ms: 7, P95Ms: 8, P99Ms: 11, P999Ms: 20, MaxMs: 25},
	}
	r.Total = report.Transaction{Name: "total", Count: 600, Pass: 599, Errors: 1, TPS: tps, P50Ms: 2.8, P90Ms: 6, P99Ms: 10, MaxMs: 25}
	r.Hits, r.HitsPerSec, r.Bytes = 1200, 40, 1<<20
	r.StatusCodes = map[string]int64{"200": 1190, "302": 9, "500": 1}
	r.Errors = []report.ErrorGroup{{Kind: "status 500", Transaction: hostile, Count: 1, Example: hostile}}
	for s := 0; s < 40; s++ {
		phase := "steady"
		if s < 5 {
			phase = "ramp-up"
		} else if s >= 35 {
			phase = "ramp-down"
		}
		r.Series = append(r.Series, report.SeriesPoint{Second: s, Phase: phase, TPS: tps + float64(s%3), Hits: 40, P50Ms: 2.8, P90Ms: 6, P99Ms: 10, Users: 50, Errors: int64(s % 7 / 6)})
	}
	r.Peak = &report.PeakSearch{PeakTPS: tps * 1.5, PeakUsers: 100, PeakStep: 2, StopWhy: "throughput stopped rising",
		Steps: []report.PeakStep{{Step: 1, Users: 50, TPS: tps, P90Ms: 6}, {Step: 2, Users: 100, TPS: tps * 1.5, P90Ms: 9}, {Step: 3, Users: 150, TPS: tps * 1.51, P90Ms: 30}}}
	r.Thresholds = []report.ThresholdResult{{Name: "error rate", Limit: 0.0001, Actual: 0.0017, Passed: false}}
	r.Audit = &report.AuditSummary{Passed: true, Checks: 9, Accounts: 5000, Orders: 25000, Holdings: 25000, Quotes: 1000, Seconds: 0.4}
	r.SUT = &report.SUT{Processes: []report.SUTProcess{
		{Name: "monolith", PID: 4242, Source: "proc", CPUSeconds: 30, PeakRSSBytes: 200 << 20},
		{Name: "web-2", Source: "http://10.0.0.2:8080/metrics", CPUSeconds: 12, PeakRSSBytes: 90 << 20},
	}}
	for s := 0; s < 40; s++ {
		r.SUT.Processes[0].Series = append(r.SUT.Processes[0].Series, report.ResourcePoint{T: float64(s), CPUCores: 0.8, RSSBytes: 180 << 20})
		if s%2 == 0 { // another tier sampled at other times: the chart has gaps, not an error
			r.SUT.Processes[1].Series = append(r.SUT.Processes[1].Series, report.ResourcePoint{T: float64(s) + 0.5, CPUCores: 0.3, RSSBytes: 80 << 20})
		}
	}
	r.Disclosure = &report.Disclosure{
		Hardware:      report.Hardware{CPUModel: "AMD EPYC 7B13", Cores: 2, MemoryBytes: 8 << 30},
		OS:            report.OSInfo{Kernel: "6.1.0-27-amd64", Distribution: "Debian GNU/Linux 12 (bookworm)"},
		Software:      report.Software{Tradebench: "0.1.0", Commit: "f2e9c87", Go: "go1.26.8", Database: "SQLite 3.50.4"},
		Configuration: json.RawMessage(`{"access":"inprocess","orders":{"mode":"sync"},"note":"` + strings.ReplaceAll(hostile, `"`, `\"`) + `"}`),
		DataSet:       &report.DataSet{Accounts: 5000, Quotes: 1000, Holdings: 5, Orders: 5, Seed: 1},
		Workload:      report.WorkloadInfo{Scenario: "stocktrader", ScenarioHash: strings.Repeat("ab", 32), Users: 50, Think: "1s", Phases: r.Phases},
		RunRules:      report.RunRules{MeasuredWindow: "steady state only, 30 s", Thresholds: []string{"error rate ≤ 0.01%"}, ErrorsAre: "a failed check or transport error"},
		Command:       []string{"tradebench", "run", "--users", "50", "--scenario", "my flow.yaml"},
	}
	r.PricePerformance = &report.PricePerformance{Currency: "USD", Total: "20000.00", TPS: tps * 1.5, PerTPS: "133.33", TPSOf: report.PriceOfPeak,
		Items: []report.PriceItem{{Name: "server", Cost: "20000.00"}}}
	r.Agents = []report.AgentResult{{Name: "a1", Host: "10.0.0.5", Requests: 600, Errors: 1, P99Ms: 10, State: report.AgentDone},
		{Name: "a2", Host: "10.0.0.6", Requests: 0, State: report.AgentLost}}
	r.Notes = []string{"a note"}
	return r
}

func render(t *testing.T, r *report.Results) string {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// assertOffline fails if the page refers to anything outside itself: every src and href must be
// an in-page anchor, and nothing may be loaded through a link, import or CSS url().
func assertOffline(t *testing.T, page string) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		if n.Type == html.ElementNode {
			for _, a := range n.Attr {
				switch strings.ToLower(a.Key) {
				case "src", "href", "action", "srcset", "poster", "data":
					if !strings.HasPrefix(a.Val, "#") {
						t.Errorf("<%s %s=%q>: a page must not load anything", n.Data, a.Key, a.Val)
					}
				}
			}
			if n.Data == "link" || n.Data == "iframe" || n.Data == "object" || n.Data == "embed" {
				t.Errorf("<%s> in the page", n.Data)
			}
		}
		if n.Type == html.ElementNode && n.Data == "style" && n.FirstChild != nil {
			if css := n.FirstChild.Data; strings.Contains(css, "url(") || strings.Contains(css, "@import") {
				t.Errorf("the page's CSS loads something: %q", regexp.MustCompile(`(url\(|@import)[^;]*`).FindString(css))
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(doc)
}

func TestReportIsSelfContainedAndEscaped(t *testing.T) {
	page := render(t, sample(100))
	assertOffline(t, page)
	if strings.Contains(page, hostile) || strings.Contains(page, `<img src=x`) {
		t.Error("text from the results file was inserted unescaped")
	}
	for _, want := range []string{
		"Peak sustained TPS", "150.0", // headline: the peak, and what it was
		"133.33 USD per TPS", "the peak sustained throughput of the peak search",
		"AMD EPYC 7B13", "Debian GNU/Linux 12 (bookworm)", "SQLite 3.50.4", "8.00 GiB", strings.Repeat("ab", 32),
		"tradebench run --users 50 --scenario &#39;my flow.yaml&#39;", // the command, quoted so it can be typed again
		"orders.mode", "thresholds: FAILED", "audit: passed", "web-2", "http://10.0.0.2:8080/metrics", "lost",
		"status 500", "0.1667 %", // 1 of 600 failed
		"uPlot " + UPlotVersion, "MIT",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the report does not show %q", want)
		}
	}
}

// Results without the newer sections (an older file, or a workload without them) still make a
// report; what is missing says "not recorded".
func TestReportOfOlderResults(t *testing.T) {
	r := report.New("xmlmark")
	r.Transactions = []report.Transaction{{Name: "dom", Count: 10, Pass: 10, TPS: 5}}
	r.Total = r.Transactions[0]
	page := render(t, r)
	assertOffline(t, page)
	for _, want := range []string{"Resources of the system under test: not recorded", "Disclosure not recorded", "Not priced", "No per-second series recorded", "No audit recorded"} {
		if !strings.Contains(page, want) {
			t.Errorf("the report of older results does not say %q", want)
		}
	}
	if strings.Contains(page, `id="peak"`) || strings.Contains(page, `id="agents"`) {
		t.Error("sections without data are shown")
	}
}

// drawnCharts opens a page in headless Chromium and checks that every chart the page lays out
// was drawn (one uPlot canvas per chart) and no script failed; it returns the DOM.
func drawnCharts(t *testing.T, path string, want int) string {
	t.Helper()
	bin := headless.Require(t)
	dom, err := headless.DumpDOM(context.Background(), bin, path)
	if err != nil {
		t.Fatal(err)
	}
	d := Inspect(dom)
	if d.Reported < 0 {
		t.Fatalf("the chart script did not finish (no data-charts-drawn); DOM starts:\n%.2000s", dom)
	}
	if d.Errors != "" {
		t.Errorf("a chart's script failed: %s", d.Errors)
	}
	if !d.OK() || d.Places != want {
		t.Errorf("%d chart places, %d canvases, %d drawn; want %d of each", d.Places, d.Canvases, d.Reported, want)
	}
	return dom
}

func TestReportDrawsEveryChartInChromium(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.html")
	r := sample(100)
	if err := WriteFile(path, func(w io.Writer) error { return Render(w, r) }); err != nil {
		t.Fatal(err)
	}
	// throughput, latency, load, errors; the p90 per transaction; SUT CPU and memory; the peak
	// search; $/TPS per step; the capacity search's TPS and p90 against users (the papers' chart)
	dom := drawnCharts(t, path, 11)
	if strings.Contains(dom, "<title>pwned</title>") {
		t.Error("script from the results file ran")
	}
}

func TestCompareInChromium(t *testing.T) {
	a, b := sample(100), sample(150)
	b.Settings.Users = 80
	b.Disclosure.Software.Database = "PostgreSQL 15.14"
	b.PricePerformance = nil
	b.Transactions = append(b.Transactions, report.Transaction{Name: "buy", Count: 5, Pass: 5, TPS: 1})
	var buf bytes.Buffer
	if err := RenderCompare(&buf, []Run{{"sqlite", a}, {"postgres", b}}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	assertOffline(t, page)
	if strings.Contains(page, hostile) {
		t.Error("text from a results file was inserted unescaped")
	}
	for _, want := range []string{
		`<td class="changed">80</td>`, `<td class="changed">PostgreSQL 15.14</td>`, // what changed, highlighted
		"settings.users", "disclosure.software.database",
		// TPS up half, but with more users: shown uncoloured, and said once why
		`<td class="incomparable" title="another offered load (users 50 → 80)`, `postgres offered another load than sqlite (users 50 → 80)`,
		"Compared: postgres: database SQLite 3.50.4 → PostgreSQL 15.14.",
		"133.33 USD", "Price list of sqlite", "buy",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the comparison does not show %q", want)
		}
	}
	if strings.Contains(page, `<th>settings.think</th><td class="changed"`) {
		t.Error("an unchanged setting is highlighted")
	}
	path := filepath.Join(t.TempDir(), "c.html")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// TPS and latency per run, TPS and p90 per transaction, $/TPS, throughput over time
	drawnCharts(t, path, 6)
}

func TestCompareNeedsTwoRuns(t *testing.T) {
	if err := RenderCompare(io.Discard, []Run{{"a", sample(1)}}); err == nil {
		t.Error("a comparison of one run")
	}
}

// A page that fails to render leaves nothing behind and does not touch an existing report.
func TestWriteFileIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.html")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteFile(path, func(w io.Writer) error { w.Write([]byte("<html>half")); return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("error %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("the old report became %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
	if err := WriteFile(path, func(w io.Writer) error { return Render(w, sample(3)) }); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode())
	}
}

func TestPathFor(t *testing.T) {
	for in, want := range map[string]string{"a.json": "a.html", "dir/results.json": "dir/results.html", "x": "x.html", "r.html": "r.html.html", "a.b.json": "a.b.html"} {
		if got := PathFor(in); got != want {
			t.Errorf("PathFor(%q) = %q, want %q", in, got, want)
		}
	}
}

// BenchmarkRenderHour renders the report of an hour-long run: 3600 points a second, 20
// transactions, two SUT processes sampled every second.
func BenchmarkRenderHour(b *testing.B) {
	r := sample(500)
	r.Series = r.Series[:0]
	for s := 0; s < 3600; s++ {
		r.Series = append(r.Series, report.SeriesPoint{Second: s, Phase: "steady", TPS: 500, Hits: 900, P50Ms: 3, P90Ms: 9, P99Ms: 30, Users: 500})
	}
	for i := 0; i < 18; i++ {
		r.Transactions = append(r.Transactions, r.Transactions[0])
	}
	for i := range r.SUT.Processes {
		p := &r.SUT.Processes[i]
		p.Series = p.Series[:0]
		for s := 0; s < 3600; s++ {
			p.Series = append(p.Series, report.ResourcePoint{T: float64(s), CPUCores: 1.5, RSSBytes: 300 << 20})
		}
	}
	var size int
	b.ReportAllocs()
	for b.Loop() {
		var buf bytes.Buffer
		if err := Render(&buf, r); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
	}
	b.ReportMetric(float64(size)/1024, "KiB/page")
}

// Results files written by earlier builds (schema version 1: a run, a drive, a cache sweep)
// make a report.
func TestReportOfVersion1Files(t *testing.T) {
	files, _ := filepath.Glob("../testdata/v1-*.json")
	if len(files) == 0 {
		t.Fatal("no version 1 results files in ../testdata")
	}
	for _, f := range files {
		r, err := report.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		page := render(t, r)
		assertOffline(t, page)
		if !strings.Contains(page, "Full disclosure") || !strings.Contains(page, r.Workload) {
			t.Errorf("%s: the report is incomplete", f)
		}
	}
}

// Runs too short to close a second have no per-second series: the comparison draws every chart
// it has and throws no script error (its throughput-over-time chart had a null time axis once).
// Mutant: the chart appended whatever its points → "cmp-over-time: Cannot read properties of null".
func TestCompareRunsWithoutSeries(t *testing.T) {
	a, b := sample(100), sample(150)
	a.Series, b.Series = nil, nil
	var buf bytes.Buffer
	if err := RenderCompare(&buf, []Run{{"a", a}, {"b", b}}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "c.html")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	drawnCharts(t, path, 5) // TPS and latency per run, TPS and p90 per transaction, $/TPS
}
