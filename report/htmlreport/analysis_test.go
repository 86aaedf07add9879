package htmlreport

import (
	"bytes"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tradebench/tradebench/report"
)

// withHistogram gives a transaction a real HDR histogram of n latencies drawn from a lognormal
// distribution (a latency's usual shape), encoded as the recorder encodes it.
func withHistogram(t *testing.T, tr report.Transaction, n int, seed uint64) (report.Transaction, *hdr.Histogram) {
	t.Helper()
	h := hdr.New(1, 3_600_000_000, 3)
	r := rand.New(rand.NewPCG(seed, 7))
	for range n {
		if err := h.RecordValue(int64(1000 * math.Exp(r.NormFloat64()))); err != nil {
			t.Fatal(err)
		}
	}
	enc, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	tr.Histogram = string(enc)
	return tr, h
}

// The distribution plot's points are the HDR histogram's own percentiles: at x nines the
// latency at percentile 100·(1−10^−x), for the overall line (every transaction's histogram
// merged) and each transaction's; a line stops where its samples stop resolving percentiles
// (20,000 samples: 4.3 nines). Mutant: distSeries using p.Percentile/100 as the quantile (or
// Distribution forgetting the /1000 to milliseconds) fails this test.
func TestDistributionPlotIsTheHistogramsPercentiles(t *testing.T) {
	r := sample(100)
	var hs []*hdr.Histogram
	for i := range r.Transactions {
		var h *hdr.Histogram
		r.Transactions[i], h = withHistogram(t, r.Transactions[i], 10_000, uint64(i+1))
		hs = append(hs, h)
	}
	all := hdr.New(1, 3_600_000_000, 3)
	for _, h := range hs {
		all.Merge(h)
	}
	c := reportDist(r)
	if c == nil || len(c.Series) != 3 || c.Kind != "dist" {
		t.Fatalf("distribution chart: %+v", c)
	}
	check := func(s seriesSpec, h *hdr.Histogram) {
		reach := math.Log10(float64(h.TotalCount()))
		drawn := 0
		for i, x := range c.X {
			v := s.Values[i]
			if x > reach+1e-9 {
				if v != nil {
					t.Errorf("%s: a point at %.2f nines, past the %.2f the samples resolve", s.Label, x, reach)
				}
				continue
			}
			want := float64(h.ValueAtQuantile(100*(1-math.Pow(10, -x)))) / 1000
			if v == nil || *v != want {
				t.Errorf("%s at %.2f nines: %v, want the histogram's %v ms", s.Label, x, v, want)
			}
			drawn++
		}
		if drawn < 80 {
			t.Errorf("%s: %d points drawn", s.Label, drawn)
		}
	}
	check(c.Series[0], all)
	check(c.Series[1], hs[0])
	check(c.Series[2], hs[1])
	// the x axis ends at p99.999 and p99 sits at 2 nines
	if c.X[len(c.X)-1] != report.MaxNines || math.Abs(report.PercentileAt(2)-99) > 1e-9 || math.Abs(report.Nines(99.9)-3) > 1e-9 {
		t.Errorf("nines axis: ends at %v; p99 at %v", c.X[len(c.X)-1], report.Nines(99))
	}
}

// "What changed" folds away what differs on every run — the run id, the random seed, a target
// on another free port, a server's listen address, start time and uptime, the command line —
// and keeps the settings that were changed in view; the access mode that changed is named as
// the system variant compared. Mutant: perRun returning false (nothing folded) fails.
func TestWhatChangedFoldsPerRunFacts(t *testing.T) {
	a, b := sample(100), sample(100)
	a.Settings.RunID, b.Settings.RunID = "tp38177l0u4", "tp381c8b5nw"
	a.Settings.Seed, b.Settings.Seed = 16176573380733312984, 2602264670622629794
	a.Target, b.Target = "http://127.0.0.1:40085", "http://127.0.0.1:38489"
	a.Disclosure.Configuration = []byte(`{"listen":"127.0.0.1:40085","runtime":{"started":"2026-11-26T02:24:43Z","uptime_seconds":5.01},"host":{"grpc_addr":"127.0.0.1:37115","rest_url":"http://127.0.0.1:33875/api/v1"},"access":{"mode":"inprocess"}}`)
	b.Disclosure.Configuration = []byte(`{"listen":"127.0.0.1:38489","runtime":{"started":"2026-11-26T02:24:48Z","uptime_seconds":5.03},"host":{"grpc_addr":"127.0.0.1:43191","rest_url":"http://127.0.0.1:41787/api/v1"},"access":{"mode":"grpc"}}`)
	b.Disclosure.Command = []string{"/tmp/go-build3170/b001/exe/tradebench", "run", "--access", "grpc", "--label", "it's grpc"}
	v := newCompareView([]Run{{"in-process", a}, {"grpc", b}})
	keys := func(rows []diffRow) string {
		var ks []string
		for _, r := range rows {
			ks = append(ks, r.Key)
		}
		return strings.Join(ks, " ")
	}
	shown, folded := keys(v.Changed), keys(v.Folded)
	for _, k := range []string{"settings.run_id", "settings.seed", "target", "disclosure.configuration.listen", "disclosure.configuration.runtime.started",
		"disclosure.configuration.runtime.uptime_seconds", "disclosure.configuration.host.grpc_addr", "disclosure.configuration.host.rest_url", "disclosure.command"} {
		if !strings.Contains(" "+folded+" ", " "+k+" ") {
			t.Errorf("%s is not folded away (folded: %s; shown: %s)", k, folded, shown)
		}
	}
	if shown != "disclosure.configuration.access.mode" {
		t.Errorf("what changed shows %q, want only the access mode", shown)
	}
	if v.Runs[1].Command != `tradebench run --access grpc --label 'it'\''s grpc'` {
		t.Errorf("command as a shell line: %q", v.Runs[1].Command)
	}
	if len(v.Variants) != 1 || v.Variants[0] != "grpc: access.mode inprocess → grpc" {
		t.Errorf("variants compared: %q, want the access mode", v.Variants)
	}
	var buf bytes.Buffer
	if err := RenderCompare(&buf, []Run{{"in-process", a}, {"grpc", b}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `<details class="folded" id="per-run">`) {
		t.Error("the page has no folded per-run facts")
	}
}

// In Chromium, a report with histograms draws the distribution plot beside the charts over the
// run; the latency charts carry a log-scale toggle; the time axes show clock time; no legend
// shows a placeholder value ("—") before the cursor is on a chart. Mutants: charts.js adding
// the toggle only for kind "dist" (one toggle, not two) fails; fmt returning "—" for a missing
// value fails.
func TestReportLatencyChartsInChromium(t *testing.T) {
	r := sample(100)
	for i := range r.Transactions {
		r.Transactions[i], _ = withHistogram(t, r.Transactions[i], 5_000, uint64(i+1))
	}
	path := filepath.Join(t.TempDir(), "r.html")
	if err := WriteFile(path, func(w io.Writer) error { return Render(w, r) }); err != nil {
		t.Fatal(err)
	}
	// the eleven of TestReportDrawsEveryChartInChromium and the distribution
	dom := drawnCharts(t, path, 12)
	if n := strings.Count(dom, "data-log-toggle="); n != 2 {
		t.Errorf("%d log-scale toggles, want 2 (response time, distribution)", n)
	}
	if strings.Contains(dom, `class="u-value">—<`) {
		t.Error("a legend shows a placeholder value")
	}
	if !strings.Contains(dom, ">06:00:1") && !strings.Contains(dom, "clock time") {
		t.Error("the time axes do not show clock time")
	}
}

// hits/s is drawn only in the seconds it differs from transactions/s; when it never does, the
// line is left out and the note says why. Mutant: always appending the hits series fails.
func TestHitsDrawnOnlyWhereTheyDiffer(t *testing.T) {
	r := sample(40)
	for i := range r.Series {
		r.Series[i].TPS, r.Series[i].Hits = 40, 40
	}
	c := timeCharts(r)[0]
	if len(c.Series) != 1 || !strings.Contains(c.Note, "not drawn twice") {
		t.Fatalf("hits equal to transactions every second: %d lines, note %q", len(c.Series), c.Note)
	}
	r.Series[7].Hits = 95 // a redirect-heavy second
	c = timeCharts(r)[0]
	if len(c.Series) != 2 {
		t.Fatalf("%d lines, want transactions and hits", len(c.Series))
	}
	for i, v := range c.Series[1].Values {
		if (v != nil) != (i == 7) {
			t.Errorf("second %d: hits drawn = %v", i, v != nil)
		}
	}
}

// Runs of one workload with other measured windows or data sets compare, flagged at the top.
// Mutant: Caveats comparing Phases instead of SteadySeconds misses the window.
func TestCaveatsFlagWindowsAndDataSets(t *testing.T) {
	a, b := sample(100), sample(100)
	b.SteadySeconds = 120
	b.Disclosure.DataSet = &report.DataSet{Accounts: 500000, Quotes: 100000, Holdings: 5, Seed: 1}
	v := newCompareView([]Run{{"a", a}, {"b", b}})
	got := strings.Join(v.Caveats, "\n")
	if !strings.Contains(got, "measured windows differ: 30 s for") || !strings.Contains(got, "data sets differ") {
		t.Fatalf("caveats: %q", got)
	}
	var buf bytes.Buffer
	if err := RenderCompare(&buf, []Run{{"a", a}, {"b", b}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `id="caveats"`) {
		t.Error("the page does not flag the caveats")
	}
}
