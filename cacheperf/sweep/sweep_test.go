package sweep

import (
	"bytes"
	"context"
	"math"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/cacheperf/objcache"
	"github.com/tradebench/tradebench/report"
)

// TestSweepSmall runs a tiny sweep end to end: a temporary SQLite database, the app in-process,
// the load engine, a key range that fits the cache and one that does not, the mix and the
// baselines.
func TestSweepSmall(t *testing.T) {
	defer debug.SetMemoryLimit(math.MaxInt64) // the sweep sets the process's limit
	var progress bytes.Buffer
	res, err := Run(context.Background(), Config{
		Items: 200, Size: 16 << 10, Seed: 3,
		Cache: objcache.Config{Budget: 1 << 20},
		Keys:  []int{20, 200}, MixKeys: []int{20}, OtherWorkMix: 50, Baseline: true,
		Threads: 4, Warmup: 100 * time.Millisecond, Steady: 400 * time.Millisecond,
		Progress: &progress,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Workload != "cacheperf" || res.Scenario != "sweep" {
		t.Fatalf("workload %q scenario %q", res.Workload, res.Scenario)
	}
	points := res.Extra["points"].([]Point)
	if len(points) != 5 {
		t.Fatalf("%d points, want 2 baselines + 2 cache + 1 mix: %+v", len(points), points)
	}
	byName := map[string]Point{}
	for _, p := range points {
		if p.Errors != 0 || p.TPS <= 0 || p.PeakRSS <= 0 || p.Ceiling <= 0 {
			t.Errorf("point %+v: errors, no throughput or no memory reading", p)
		}
		byName[p.Phase+"@"+itoa(p.Keys)] = p
	}
	if p := byName["cache@20"]; p.HitRatio != 1 || p.Misses != 0 {
		t.Errorf("20 keys of 16KB in a 1MB cache: hit ratio %v with %d misses, want all hits", p.HitRatio, p.Misses)
	}
	if p := byName["cache@200"]; p.HitRatio > 0.7 || p.Misses == 0 || p.Evictions == 0 {
		t.Errorf("200 keys of 16KB (3.3MB) in a 1MB cache: hit ratio %v, %d misses, %d evictions", p.HitRatio, p.Misses, p.Evictions)
	}
	if p := byName["mix@20"]; p.ItemTPS <= 0 || p.OtherTPS <= 0 || math.Abs(p.ItemTPS+p.OtherTPS-p.TPS) > 1e-6*p.TPS {
		t.Errorf("mix point %+v: cache and other-work TPS should add up to the total", p)
	}
	for _, name := range []string{"hello@0", "hello@1", "item@20", "item@200", "mix-item@20", "mix-otherwork@20"} {
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
	if err != nil || len(back.Extra["points"].([]any)) != 5 {
		t.Fatalf("results file: %v", err)
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
		{Threads: 4, Steady: time.Second},                                                       // no keys
		{Keys: []int{10}, Threads: 0, Steady: time.Second},                                      // no threads
		{Keys: []int{10}, Threads: 4},                                                           // no steady
		{Keys: []int{0}, Threads: 4, Steady: time.Second},                                       // bad key
		{Keys: []int{10}, Threads: 1, Steady: time.Second, OtherWorkMix: 60, MixKeys: []int{5}}, // nobody left
		{Keys: []int{10}, Threads: 4, Steady: time.Second, OtherWorkMix: 101},
	} {
		if _, err := Run(context.Background(), cfg); err == nil {
			t.Errorf("Run(%+v) succeeded", cfg)
		}
	}
}

func TestSweepRefusesTooSmallDatabase(t *testing.T) {
	_, err := Run(context.Background(), Config{Items: 5, Size: 1024, Keys: []int{10}, Threads: 2, Steady: time.Second, Cache: objcache.Config{Budget: 1 << 20}})
	if err == nil || !strings.Contains(err.Error(), "cacheperf load --items 10") {
		t.Fatalf("sweep over more keys than items: %v", err)
	}
}
