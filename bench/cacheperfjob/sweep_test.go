package cacheperfjob

import (
	"bytes"
	"context"
	"errors"
	"math"
	"reflect"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/cacheperf/objcache"
	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/internal/testing/racetest"
	"github.com/tradebench/tradebench/report"
)

// TestSweepSmall runs a small sweep end to end: a temporary SQLite database, the app
// in-process, the load engine, a key range that fits the cache and one that does not, the mix
// and the baselines.
//
// It is sized so the memory ceiling can fail: the 4 MB cache's stated ceiling is 80 MB (budget +
// 3 × the 4 MB window + 64 MB base), and warming the large point reads all 200 items of 512 KB,
// 100 MB, before its load starts (by behaviour: every key once, however fast the machine). The
// real cache keeps the process well under the ceiling; a cache that ignored its budget would hold
// all 100 MB live, over the ceiling whatever the rest of the process takes. Checked by hand with
// otter's MaximumWeight a thousand times the budget: "memory over the stated ceiling at 1 of the
// points: cache@200 peak RSS 127.9MB > ceiling 80MB" (the real cache peaked at 45 MB).
func TestSweepSmall(t *testing.T) {
	defer debug.SetMemoryLimit(math.MaxInt64) // the sweep sets the process's limit
	// Under the race detector the ceiling is not checked (its shadow memory is outside it), so
	// the items are small there, to keep the run short; the cache still holds only part of them.
	size, budget := int64(512<<10), int64(4<<20)
	if racetest.Enabled {
		size, budget = 16<<10, 1<<20
	}
	var progress bytes.Buffer
	res, err := Run(context.Background(), Config{
		Items: 200, Size: size, Seed: 3,
		Cache: objcache.Config{Budget: budget},
		Keys:  []int{4, 200}, MixKeys: []int{4}, OtherWorkMix: 50, Baseline: true,
		Phases: driver.Phases{Users: 4, RampUp: 100 * time.Millisecond, Duration: 400 * time.Millisecond}, Log: &progress,
	}, driver.Config{})
	var over *CeilingExceeded
	if err != nil && !(racetest.Enabled && errors.As(err, &over)) {
		t.Fatal(err)
	}
	if res.Workload != "cacheperf" || res.Scenario != "sweep" {
		t.Fatalf("workload %q scenario %q", res.Workload, res.Scenario)
	}
	points, err := PointsOf(res)
	if err != nil || len(points) != 5 {
		t.Fatalf("%d points, want 2 baselines + 2 cache + 1 mix: %+v", len(points), points)
	}
	// every point is judged by the run rules and the sweep carries the verdict of them all, one
	// rule per point (mutants sweep-point-unjudged: a point without its verdict;
	// sweep-verdict-combined: the sweep judged as one run over its concatenated points)
	if res.Validity == nil || len(res.Validity.Rules) != len(points) {
		t.Fatalf("the sweep's verdict %+v should hold one rule per point (%d)", res.Validity, len(points))
	}
	for i, p := range points {
		if p.Verdict == "" || !strings.HasPrefix(res.Validity.Rules[i].Rule, "point "+p.label()) {
			t.Errorf("point %s: verdict %q, the sweep's rule %+v", p.label(), p.Verdict, res.Validity.Rules[i])
		}
	}
	byName := map[string]Point{}
	var overCeil int
	for _, p := range points {
		if p.Errors != 0 || p.TPS <= 0 || p.PeakRSS <= 0 || p.Ceiling <= 0 {
			t.Errorf("point %+v: errors, no throughput or no memory reading", p)
		}
		if p.WithinCeil != (p.PeakRSS <= p.Ceiling) || p.PeakSource == "" {
			t.Errorf("point %s: within ceiling %v, peak RSS %d (%s), ceiling %d", p.label(), p.WithinCeil, p.PeakRSS, p.PeakSource, p.Ceiling)
		}
		// The benchmark's promise: the process stays under its cache budget plus the stated
		// overhead. The race detector's shadow memory is outside that promise.
		if !p.WithinCeil {
			overCeil++
			if !racetest.Enabled {
				t.Errorf("point %s: peak RSS %d (%s) over the stated ceiling %d", p.label(), p.PeakRSS, p.PeakSource, p.Ceiling)
			}
		}
		byName[p.Phase+"@"+itoa(p.Keys)] = p
	}
	if overCeil > 0 && (over == nil || len(over.Points) != overCeil) || overCeil == 0 && over != nil {
		t.Errorf("%d points over the ceiling, but Run's error is %v", overCeil, err)
	}
	if len(res.Thresholds) != len(points) {
		t.Errorf("%d thresholds for %d points: %+v", len(res.Thresholds), len(points), res.Thresholds)
	}
	if p := byName["cache@4"]; p.HitRatio != 1 || p.Misses != 0 {
		t.Errorf("4 keys of %d bytes in a %d-byte cache: hit ratio %v with %d misses, want all hits", size, budget, p.HitRatio, p.Misses)
	}
	if p := byName["cache@200"]; p.HitRatio > 0.7 || p.Misses == 0 || p.Evictions == 0 {
		t.Errorf("200 keys of %d bytes in a %d-byte cache: hit ratio %v, %d misses, %d evictions", size, budget, p.HitRatio, p.Misses, p.Evictions)
	}
	if p := byName["mix@4"]; p.ItemTPS <= 0 || p.OtherTPS <= 0 || math.Abs(p.ItemTPS+p.OtherTPS-p.TPS) > 1e-6*p.TPS {
		t.Errorf("mix point %+v: cache and other-work TPS should add up to the total", p)
	}
	for _, name := range []string{"hello@0", "hello@1", "item@4", "item@200", "mix-item@4", "mix-otherwork@4"} {
		tx, ok := res.Transaction(name)
		if !ok || tx.Pass == 0 || tx.Histogram == "" {
			t.Errorf("transaction %s missing or empty: %+v", name, tx)
		}
	}
	var sum int64
	for _, tx := range res.Transactions {
		sum += tx.Pass
	}
	if res.Total.Pass != sum || res.Total.P50Ms <= 0 || res.Hits < sum {
		t.Errorf("total %+v does not merge the points (sum of passes %d, hits %d)", res.Total, sum, res.Hits)
	}
	// the results file round-trips
	path := t.TempDir() + "/sweep.json"
	if err := res.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	back, err := report.ReadFile(path)
	if err != nil {
		t.Fatalf("results file: %v", err)
	}
	if bp, err := PointsOf(back); err != nil || !reflect.DeepEqual(bp, points) {
		t.Fatalf("the points read back from the results file: %v\n%+v\nwant\n%+v", err, bp, points)
	}
	var table bytes.Buffer
	WriteTable(&table, points)
	for _, want := range []string{"unique keys", "hit ratio", "peak RSS", "other work TPS", "baseline: GET /cacheperf/hello"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	if !strings.Contains(progress.String(), "warming the cache over 200 keys") {
		t.Errorf("progress output:\n%s", progress.String())
	}
	t.Logf("\n%s", table.String())
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestSweepConfigErrors(t *testing.T) {
	for _, cfg := range []Config{
		{Phases: driver.Phases{Users: 4, Duration: time.Second}},                                                       // no keys
		{Keys: []int{10}, Phases: driver.Phases{Users: 0, Duration: time.Second}},                                      // no threads
		{Keys: []int{10}, Phases: driver.Phases{Users: 4}},                                                             // no steady
		{Keys: []int{0}, Phases: driver.Phases{Users: 4, Duration: time.Second}},                                       // bad key
		{Keys: []int{10}, Phases: driver.Phases{Users: 1, Duration: time.Second}, OtherWorkMix: 60, MixKeys: []int{5}}, // nobody left
		{Keys: []int{10}, Phases: driver.Phases{Users: 4, Duration: time.Second}, OtherWorkMix: 101},
	} {
		if _, err := Run(context.Background(), cfg, driver.Config{}); err == nil {
			t.Errorf("Run(%+v) succeeded", cfg)
		}
	}
}

func TestSweepRefusesTooSmallDatabase(t *testing.T) {
	_, err := Run(context.Background(), Config{Items: 5, Size: 1024, Keys: []int{10}, Phases: driver.Phases{Users: 2, Duration: time.Second}, Cache: objcache.Config{Budget: 1 << 20}}, driver.Config{})
	if err == nil || !strings.Contains(err.Error(), "load at least 10 items") {
		t.Fatalf("sweep over more keys than items: %v", err)
	}
}

// A point over its ceiling fails the sweep with a *CeilingExceeded naming it (exit status 3), the
// results still returned; and when the kernel refuses to reset the high-water mark, the points
// report their sampled peak, marked as such, not the process's.
func TestSweepOverCeilingFails(t *testing.T) {
	defer debug.SetMemoryLimit(math.MaxInt64)
	defer func(r func() (int64, int64), reset func() bool) { readRSS, resetPeakRSS = r, reset }(readRSS, resetPeakRSS)
	const sampled, processPeak = 1 << 40, 1 << 41
	readRSS = func() (int64, int64) { return sampled, processPeak }
	resetPeakRSS = func() bool { return false }

	res, err := Run(context.Background(), Config{
		Items: 10, Size: 1 << 10, Cache: objcache.Config{Budget: 1 << 20},
		Keys: []int{5, 10}, Phases: driver.Phases{Users: 2, Duration: 100 * time.Millisecond}, SampleEvery: 10 * time.Millisecond,
	}, driver.Config{})
	var over *CeilingExceeded
	if !errors.As(err, &over) || res == nil {
		t.Fatalf("a sweep over its ceiling: results %v, error %v; want results and a *CeilingExceeded", res != nil, err)
	}
	if len(over.Points) != 2 ||
		!strings.Contains(err.Error(), "cache@5 peak RSS") || !strings.Contains(err.Error(), "cache@10 peak RSS") {
		t.Errorf("error %q should name both points", err)
	}
	points, err := PointsOf(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range points {
		if p.PeakRSS != sampled || p.PeakSource != PeakSampled || p.WithinCeil {
			t.Errorf("point %s: peak RSS %d (%s), within ceiling %v; want the sampled %d, over", p.label(), p.PeakRSS, p.PeakSource, p.WithinCeil, int64(sampled))
		}
	}
	if len(res.Thresholds) != 2 || res.Thresholds[0].Passed || res.Thresholds[0].Name != "max_peak_rss_bytes@cache@5" {
		t.Errorf("thresholds %+v", res.Thresholds)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "refused to reset the peak RSS") }) {
		t.Errorf("notes do not say the peak RSS was sampled: %q", res.Notes)
	}
	var table bytes.Buffer
	WriteTable(&table, points)
	if !strings.Contains(table.String(), "1TB* ") || !strings.Contains(table.String(), "OVER") || !strings.Contains(table.String(), sampledNote) {
		t.Errorf("the table should star the sampled peaks, explain them and mark the points OVER:\n%s", table.String())
	}
}

// Only a reset high-water mark is the point's own; otherwise the sampled peak stands.
func TestPointPeak(t *testing.T) {
	defer func(r func() (int64, int64)) { readRSS = r }(readRSS)
	readRSS = func() (int64, int64) { return 5 << 20, 900 << 20 }
	if peak, src := pointPeak(10<<20, false); peak != 10<<20 || src != PeakSampled {
		t.Errorf("no reset: peak %d (%s), want the sampled %d", peak, src, 10<<20)
	}
	if peak, src := pointPeak(10<<20, true); peak != 900<<20 || src != PeakKernel {
		t.Errorf("reset: peak %d (%s), want the high-water mark %d", peak, src, 900<<20)
	}
}

// A results file written by an earlier build (schema version 1, the points under "extra") still
// reads: report.ReadFile converts it and PointsOf finds its points and limits.
func TestPointsOfVersion1File(t *testing.T) {
	res, err := report.ReadFile("testdata/v1-sweep.json")
	if err != nil {
		t.Fatal(err)
	}
	d, err := DetailOf(res)
	if err != nil || len(d.Points) != 5 || d.Limits == nil || d.Limits.Ceiling <= 0 || d.ItemWeight <= 0 {
		t.Fatalf("detail %+v (%v)", d, err)
	}
	for _, p := range d.Points {
		if p.TPS <= 0 || p.PeakRSS <= 0 || p.Phase == "" {
			t.Errorf("point %+v", p)
		}
	}
	if s := res.Settings; s.Users != 2 || s.RampUp != "100ms" || s.Think != "0s" {
		t.Errorf("settings %+v", s)
	}
}
