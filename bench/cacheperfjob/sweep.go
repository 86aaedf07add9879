// Package cacheperfjob runs the CachePerf sweep: for each unique-key range it starts the application
// in-process with a fresh cache, warms the cache over that range, and drives it with a fixed
// number of client threads and no think time (the CachePerf paper's 40) through the load engine, measuring
// TPS, hit ratio, latency percentiles and the process's peak resident memory; then the same for
// the CachePerf paper's mix of 40% cache users and 60% "other work" users. The outcome is one results file
// and the paper's table of unique keys against TPS.
package cacheperfjob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tradebench/tradebench/cacheperf"
	"github.com/tradebench/tradebench/cacheperf/blobstore"
	"github.com/tradebench/tradebench/cacheperf/objcache"
	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/driver/load"
	"github.com/tradebench/tradebench/driver/progress"
	"github.com/tradebench/tradebench/driver/recorder"
	"github.com/tradebench/tradebench/driver/scenario"
	"github.com/tradebench/tradebench/internal/bytesize"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/report"
)

// PaperKeys are the CachePerf paper's unique-key ranges (their table's rows).
var PaperKeys = []int{500, 1000, 1500, 2000, 2500, 3000, 4000, 5000, 10000, 20000, 25000, 26000, 27000, 30000, 40000}

// PaperMixKeys are the ranges of the paper's other-work mix tables.
var PaperMixKeys = []int{500, 1500, 2500, 3500, 4500}

// Config is one sweep.
type Config struct {
	// DB is the items' DSN. Empty: a temporary SQLite database is created and loaded with Items
	// items of Size bytes, and removed afterwards.
	DB    string
	Items int   // items to load into the temporary database (0 = the largest key range)
	Size  int64 // blob bytes per item in the temporary database
	Seed  uint64

	Cache objcache.Config // mode, byte budget, disk tier

	Keys         []int // unique-key ranges of the cache sweep
	MixKeys      []int // ranges of the mix sweep (empty or OtherWorkMix 0 = no mix)
	OtherWorkMix int   // percent of threads doing other work in the mix (the CachePerf paper's 60)
	Baseline     bool  // also measure GET /cacheperf/hello, the HTTP stack's ceiling, before and after the sweep

	// Phases is each point's load shape: Users are the client threads (the paper's 40, no think
	// time unless one is given), RampUp the unmeasured load after the warming pass, Duration the
	// measured window, RampDown the load while the threads stop (0 = they stop at once).
	driver.Phases
	// Quick is recorded in the results only: the command's --quick preset chose the sizes.
	Quick bool

	Log io.Writer // the sweep's own lines: loading, warming, each point (nil = quiet)
	// SampleEvery is the RSS sampling period (0 = 50ms).
	SampleEvery time.Duration
}

// Validate reports a sweep that cannot run, as a *setting.Error naming the field.
func (c *Config) Validate() error {
	if err := c.Phases.Validate(true); err != nil {
		return err
	}
	if err := c.Cache.Validate(); err != nil {
		return err
	}
	switch {
	case len(c.Keys) == 0:
		return setting.Errorf("Keys", "no key ranges: give some, e.g. 500,1000,2000")
	case c.Rate > 0:
		return setting.Errorf("Rate", "the sweep's points are a closed model: give the client threads (users)")
	case c.OtherWorkMix < 0 || c.OtherWorkMix > 100:
		return setting.Errorf("OtherWorkMix", "is a percentage of threads, 0..100, got %d", c.OtherWorkMix)
	case c.Items < 0:
		return setting.Errorf("Items", "must not be negative, got %d", c.Items)
	case c.DB == "" && (c.Size < 16 || c.Size > 1<<30):
		return setting.Errorf("Size", "must be between 16B and 1GB, got %s", bytesize.Format(c.Size))
	}
	for _, k := range append(slices.Clone(c.Keys), c.MixKeys...) {
		if k < 1 {
			return setting.Errorf("Keys", "key ranges must be at least 1, got %d", k)
		}
	}
	if most := slices.Max(append(slices.Clone(c.Keys), c.MixKeys...)); c.DB == "" && c.Items > 0 && c.Items < most {
		return setting.Errorf("Items", "%d is fewer than the largest key range (%d, of the keys or the mix keys): load at least %d items", c.Items, most, most)
	}
	if c.OtherWorkMix > 0 && len(c.MixKeys) > 0 {
		other := c.Users * c.OtherWorkMix / 100
		if other == 0 || other == c.Users {
			return setting.Errorf("OtherWorkMix", "a %d%% other-work mix of %d threads leaves no thread for one side: use more threads", c.OtherWorkMix, c.Users)
		}
	}
	return nil
}

// RunSettings are the sweep's own settings in its results (settings.workload).
type RunSettings struct {
	Keys         []int  `json:"keys"`
	MixKeys      []int  `json:"mix_keys"`
	OtherWorkMix int    `json:"other_work_mix_percent"`
	CacheMode    string `json:"cache_mode"`
	CacheBudget  int64  `json:"cache_budget_bytes"`
	ItemBytes    int64  `json:"item_bytes"`
	Store        string `json:"store"`
	Items        int64  `json:"items"`
	Baseline     bool   `json:"baseline"`
	Quick        bool   `json:"quick"`
}

// Detail is the sweep's own results (the results' detail section): its points, the weight of
// one cached item and the cache's bounds. The names are those of the version 1 files' "extra",
// so PointsOf reads both.
type Detail struct {
	Points     []Point          `json:"points"`
	ItemWeight int64            `json:"item_weight_bytes"`
	Limits     *objcache.Limits `json:"limits,omitempty"`
}

// DetailOf reads the sweep's own results from res (built by Run or read by report.ReadFile);
// report.ErrNoSection when res is not a sweep's.
func DetailOf(res *report.Results) (Detail, error) {
	return report.SectionAs[Detail](res.Detail)
}

// PointsOf is the sweep's points in res (see DetailOf).
func PointsOf(res *report.Results) ([]Point, error) {
	d, err := DetailOf(res)
	return d.Points, err
}

// Point is one measured point of the sweep.
type Point struct {
	Phase      string  `json:"phase"` // "baseline", "cache" or "mix"
	Keys       int     `json:"unique_keys"`
	WorkingSet int64   `json:"working_set_bytes"` // keys × the weight of one cached item
	TPS        float64 `json:"tps"`               // all passed transactions per second
	ItemTPS    float64 `json:"item_tps"`
	OtherTPS   float64 `json:"otherwork_tps,omitempty"`
	HitRatio   float64 `json:"hit_ratio"` // lookups served without the database, measured window
	Hits       int64   `json:"hits"`      // memory + disk tier + remote
	DiskHits   int64   `json:"disk_hits,omitempty"`
	Misses     int64   `json:"misses"`
	Evictions  int64   `json:"evictions"`
	P50Ms      float64 `json:"p50_ms"` // item transaction (hello for the baseline)
	P90Ms      float64 `json:"p90_ms"`
	P99Ms      float64 `json:"p99_ms"`
	Errors     int64   `json:"errors"`
	PeakRSS    int64   `json:"peak_rss_bytes"`
	PeakSource string  `json:"peak_rss_source"` // what PeakRSS is: PeakKernel or PeakSampled
	PeakGo     int64   `json:"peak_go_bytes"`   // most memory the Go runtime held (the rest of RSS is SQLite's C heap, code, stacks)
	CacheBytes int64   `json:"cache_bytes"`     // accounted at the end of the point
	Ceiling    int64   `json:"ceiling_bytes"`
	WithinCeil bool    `json:"within_ceiling"`
	// Verdict is the point's own under the run rules (valid, invalid, inconclusive).
	Verdict string `json:"verdict,omitempty"`
}

// What a Point's PeakRSS is: the kernel's high-water mark, reset at the point's start, or — when
// the kernel refused the reset, and its mark would be the whole process's, data load and earlier
// points included — the largest RSS sampled every SampleEvery.
const (
	PeakKernel  = "kernel high-water mark"
	PeakSampled = "sampled"
)

// Run runs the sweep through the one pipeline (driver.Drive) under the drive's other settings d
// (rules, progress, live views, repeats) and returns its results: Workload "cacheperf",
// Scenario "sweep", one transaction per point and kind named "item@KEYS", "mix-item@KEYS",
// "mix-otherwork@KEYS", "hello@0" and "hello@1" (the baseline before and after the sweep;
// histograms kept, so points can be merged or compared later), and the points in the detail
// section. Every point is judged by the run rules (Point.Verdict) and the sweep carries the
// worst of its points' verdicts. Each point's peak RSS is also a threshold of the results (at
// most its ceiling); when a point is over, Run returns the results and a *CeilingExceeded error,
// so the results can still be written but the broken memory promise cannot pass unnoticed.
func Run(ctx context.Context, cfg Config, d driver.Config) (*report.Results, error) {
	d.Phases = cfg.Phases // the run's load shape: the drive's from here on
	res, err := driver.Drive(ctx, d, &cfg)
	if res == nil {
		return nil, err
	}
	points, perr := PointsOf(res)
	if perr != nil {
		return res, errors.Join(err, perr)
	}
	return res, errors.Join(err, checkCeilings(res, points))
}

// Prepare implements driver.Workload: the database opened (or a temporary one loaded) and
// checked against the largest key range.
func (cfg *Config) Prepare(ctx context.Context, d *driver.Config) (*driver.Run, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.SampleEvery <= 0 {
		cfg.SampleEvery = 50 * time.Millisecond
	}
	maxKey := slices.Max(append(slices.Clone(cfg.Keys), cfg.MixKeys...))
	st, cleanup, err := openStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*driver.Run, error) { cleanup(); return nil, err }
	n, maxID, err := st.Count(ctx)
	if err != nil {
		return fail(err)
	}
	if n < int64(maxKey) || maxID < int64(maxKey) {
		return fail(fmt.Errorf("the database has %d items (largest id %d) but the sweep asks for %d unique keys: load at least %d items or sweep smaller key ranges", n, maxID, maxKey, maxKey))
	}
	sample, err := st.Meta(ctx, 1)
	if err != nil {
		return fail(fmt.Errorf("reading item 1: %w", err))
	}
	sw := &sweeper{cfg: *cfg, st: st, itemWeight: sample.Size + int64(len(sample.Name)+len(sample.ContentType)) + objcache.EntryOverhead}
	sw.client = &http.Client{Transport: &http.Transport{
		MaxIdleConns: cfg.Users * 2, MaxIdleConnsPerHost: cfg.Users * 2, IdleConnTimeout: time.Minute,
		DisableCompression: true,
	}}
	rs := RunSettings{Keys: cfg.Keys, MixKeys: cfg.MixKeys, OtherWorkMix: cfg.OtherWorkMix, CacheMode: sw.mode(),
		CacheBudget: cfg.Cache.Budget, ItemBytes: sample.Size, Store: st.Kind(), Items: n, Baseline: cfg.Baseline, Quick: cfg.Quick}
	sw.settings, sw.cleanup = rs, cleanup
	return &driver.Run{Name: "cacheperf sweep", Steps: sw}, nil
}

// Describe implements driver.Steps.
func (s *sweeper) Describe(_ context.Context, res *report.Results) error {
	res.Workload, res.Scenario = "cacheperf", "sweep"
	res.Target = "in-process " + s.st.Kind() + " store, cache " + s.mode()
	res.Settings.Think = s.cfg.ThinkOr(scenario.Think{}).Mean().String()
	var err error
	res.Settings.Workload, err = report.Section(s.settings)
	return err
}

// Close releases the sweep's connections and its store (a temporary database removed).
func (s *sweeper) Close() error {
	s.client.CloseIdleConnections()
	s.cleanup()
	return nil
}

// Measure implements driver.SelfMeasurer: it measures every point, each through m (so each is
// judged by the run rules), and folds them into one result whose verdict is the worst of the
// points'. Interrupted, it returns the points measured so far.
func (sw *sweeper) Measure(ctx context.Context, m *driver.Measurer) (*report.Results, error) {
	cfg := sw.cfg
	out := report.New("cacheperf")
	out.StartedAt = time.Now().UTC()
	var points []Point
	var parts []*report.Results
	type at struct {
		phase string
		keys  int
	}
	var plan []at
	if cfg.Baseline {
		plan = append(plan, at{"baseline", 0})
	}
	for _, k := range cfg.Keys {
		plan = append(plan, at{"cache", k})
	}
	if cfg.Baseline { // again after the sweep: the machine may be busier or quieter than at the start
		plan = append(plan, at{"baseline", 0})
	}
	if cfg.OtherWorkMix > 0 {
		for _, k := range cfg.MixKeys {
			plan = append(plan, at{"mix", k})
		}
	}
	var err error
	for _, pt := range plan {
		var p Point
		var r *report.Results
		if p, r, err = sw.point(ctx, m, pt.phase, pt.keys); err != nil {
			break
		}
		points = append(points, p)
		parts = append(parts, r)
		sw.logf("%s", p.line())
	}
	if err != nil && (ctx.Err() == nil || len(parts) == 0) {
		return nil, err
	}
	if cerr := combine(out, parts); cerr != nil {
		return nil, cerr
	}
	out.EndedAt = time.Now().UTC()
	out.Settings = report.Settings{Model: report.ModelClosed, Users: cfg.Users, RampUp: cfg.RampUp.String(), Steady: cfg.Duration.String(), RampDown: cfg.RampDown.String()}
	d := Detail{Points: points, ItemWeight: sw.itemWeight}
	if len(parts) > 0 && parts[0].Disclosure != nil {
		// every point runs the same engine on the same machine: the first point's disclosure,
		// with the sweep as its workload
		d := *parts[0].Disclosure
		d.Workload.Scenario = fmt.Sprintf("cacheperf sweep: %d points (keys %v, other-work mix keys %v at %d%%)", len(parts), cfg.Keys, cfg.MixKeys, cfg.OtherWorkMix)
		d.RunRules.MeasuredWindow = fmt.Sprintf("the steady state of each point: %v measured after a %v warm-up", cfg.Duration, cfg.RampUp)
		out.Disclosure = &d
	}
	if len(points) > 0 {
		d.Limits = &sw.limits
	}
	var serr error
	if out.Detail, serr = report.Section(d); serr != nil {
		return nil, serr
	}
	if slices.ContainsFunc(points, func(p Point) bool { return p.PeakSource == PeakSampled }) {
		out.Notes = append(out.Notes, fmt.Sprintf("the kernel refused to reset the peak RSS (/proc/self/clear_refs): "+
			"peak RSS is the largest of samples taken every %v and may miss shorter spikes", cfg.SampleEvery))
	}
	out.Validity = sweepValidity(points, parts)
	return out, err
}

// sweepValidity is the sweep's verdict: the worst of its points' (invalid over inconclusive over
// valid), each point one rule, the failing points' reasons named by the point.
func sweepValidity(points []Point, parts []*report.Results) *report.Validity {
	rank := map[string]int{report.Valid: 0, report.Inconclusive: 1, report.Invalid: 2}
	outcome := map[string]string{report.Valid: report.RulePass, report.Inconclusive: report.RuleInconclusive, report.Invalid: report.RuleFail}
	v := &report.Validity{Verdict: report.Valid}
	for i, r := range parts {
		pv := r.Validity
		if pv == nil {
			continue
		}
		if rank[pv.Verdict] > rank[v.Verdict] {
			v.Verdict = pv.Verdict
		}
		label := points[i].label()
		v.Rules = append(v.Rules, report.RuleResult{Rule: "point " + label, Outcome: outcome[pv.Verdict], Detail: pv.VerdictLine()})
		for _, x := range pv.Reasons {
			x.Detail = label + ": " + x.Detail
			v.Reasons = append(v.Reasons, x)
		}
	}
	return v
}

// CeilingExceeded is the error of a sweep that ran to the end but whose process passed the
// stated memory ceiling (cache budget + overhead) at some points: the benchmark's promise is
// broken, so the run fails like a missed threshold, results kept.
type CeilingExceeded struct{ Points []Point }

func (e *CeilingExceeded) Error() string {
	parts := make([]string, len(e.Points))
	for i, p := range e.Points {
		parts[i] = fmt.Sprintf("%s peak RSS %s > ceiling %s", p.label(), bytesize.Format(p.PeakRSS), bytesize.Format(p.Ceiling))
	}
	return fmt.Sprintf("memory over the stated ceiling at %d of the points: %s", len(e.Points), strings.Join(parts, "; "))
}

// checkCeilings records each point's peak RSS against its ceiling as a threshold of out, and
// returns a *CeilingExceeded naming the points over it (nil when none is).
func checkCeilings(out *report.Results, points []Point) error {
	var over []Point
	seen := map[string]int{}
	for _, p := range points {
		name := "max_peak_rss_bytes@" + p.label()
		if seen[name]++; seen[name] > 1 { // the baseline runs twice
			name += "#" + strconv.Itoa(seen[name])
		}
		out.Thresholds = append(out.Thresholds, report.ThresholdResult{
			Name: name, Limit: float64(p.Ceiling), Actual: float64(p.PeakRSS), Passed: p.WithinCeil,
		})
		if !p.WithinCeil {
			over = append(over, p)
		}
	}
	if len(over) > 0 {
		return &CeilingExceeded{Points: over}
	}
	return nil
}

// openStore opens cfg.DB, or creates and loads a temporary SQLite database.
func openStore(ctx context.Context, cfg *Config) (blobstore.Store, func(), error) {
	if cfg.DB != "" {
		st, err := blobstore.Open(ctx, cfg.DB)
		if err != nil {
			return nil, nil, err
		}
		return st, func() { st.Close() }, nil
	}
	items := cfg.TempItems()
	if cfg.Size <= 0 {
		return nil, nil, errors.New("item size must be positive")
	}
	dir, err := os.MkdirTemp("", "cacheperf-sweep-")
	if err != nil {
		return nil, nil, err
	}
	st, err := blobstore.Open(ctx, "sqlite:"+filepath.Join(dir, "items.db"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	done := func() { st.Close(); os.RemoveAll(dir) }
	if cfg.Log != nil {
		fmt.Fprintf(cfg.Log, "cacheperf sweep: loading %d items of %s into a temporary SQLite database in %s\n", items, bytesize.Format(cfg.Size), dir)
	}
	p := progress.NewCount(cfg.Log, false, "cacheperf load", "items")
	p.UnitBytes = cfg.Size
	if err := st.Load(ctx, blobstore.LoadConfig{Items: items, Size: cfg.Size, Seed: cfg.Seed, Progress: p.Update}); err != nil {
		done()
		return nil, nil, err
	}
	return st, done, nil
}

type sweeper struct {
	cfg        Config
	st         blobstore.Store
	client     *http.Client
	itemWeight int64
	limits     objcache.Limits
	baselines  int
	settings   RunSettings // the sweep's settings in its results
	cleanup    func()      // releases the store (a temporary database removed)
}

func (s *sweeper) mode() string {
	if s.cfg.Cache.Mode == "" {
		return objcache.ModeMemory
	}
	return s.cfg.Cache.Mode
}

func (s *sweeper) logf(format string, args ...any) {
	if s.cfg.Log != nil {
		fmt.Fprintf(s.cfg.Log, "cacheperf sweep: "+format+"\n", args...)
	}
}

// point measures one key range with a fresh application and cache.
func (s *sweeper) point(ctx context.Context, m *driver.Measurer, phase string, keys int) (Point, *report.Results, error) {
	label := phase
	if keys > 0 {
		label = fmt.Sprintf("%s@%d", phase, keys)
	}
	// Start from a clean process: the previous point's cache is garbage; return it to the OS
	// so this point's peak RSS is its own.
	runtime.GC()
	debug.FreeOSMemory()
	srv, err := cacheperf.Start(ctx, cacheperf.Config{Store: s.st, Cache: s.cfg.Cache, SetMemoryLimit: true})
	if err != nil {
		return Point{}, nil, err
	}
	defer srv.Close()
	s.limits = srv.App.Cache().Limits()

	// peak RSS over warm-up and measurement
	peakReset := resetPeakRSS()
	smp := startSampler(s.cfg.SampleEvery)
	defer smp.stop()

	if keys > 0 {
		s.logf("%s: warming the cache over %d keys", label, keys)
		if err := s.warm(ctx, srv.URL, keys); err != nil {
			return Point{}, nil, fmt.Errorf("%s: warming: %w", label, err)
		}
	}
	w := &workload{base: srv.URL, client: s.client, keys: keys, seed: s.cfg.Seed, think: s.cfg.ThinkOr(scenario.Think{})}
	switch phase {
	case "baseline":
		w.hello = true
	case "mix":
		w.otherUsers = s.cfg.Users * s.cfg.OtherWorkMix / 100
	}
	// The cache's counters are sampled at the steady window's edges for the hit ratio.
	c := srv.App.Cache()
	var before, after objcache.Stats
	var gotAfter bool
	var mu sync.Mutex
	timerStart := time.AfterFunc(s.cfg.RampUp, func() { mu.Lock(); before = c.Stats(); mu.Unlock() })
	timerEnd := time.AfterFunc(s.cfg.RampUp+s.cfg.Duration, func() { mu.Lock(); after, gotAfter = c.Stats(), true; mu.Unlock() })
	res, err := m.Measure(ctx, "cacheperf "+label, w)
	timerStart.Stop()
	timerEnd.Stop()
	if err != nil {
		return Point{}, nil, err
	}
	mu.Lock()
	if !gotAfter {
		after = c.Stats() // the run ended a hair before the timer
	}
	delta := objcache.Stats{
		Hits: after.Hits - before.Hits, DiskHits: after.DiskHits - before.DiskHits, RemoteHits: after.RemoteHits - before.RemoteHits,
		Misses: after.Misses - before.Misses, Evictions: after.Evictions - before.Evictions,
	}
	mu.Unlock()
	peak, source := pointPeak(smp.stop(), peakReset)
	peakGo := smp.peakGo

	p := Point{Phase: phase, Keys: keys, TPS: res.Total.TPS, HitRatio: delta.HitRatio(), Hits: delta.Hits + delta.DiskHits + delta.RemoteHits, DiskHits: delta.DiskHits,
		Misses: delta.Misses, Evictions: delta.Evictions, Errors: res.Total.Errors, PeakRSS: peak, PeakSource: source, PeakGo: peakGo, CacheBytes: c.Stats().Bytes,
		Ceiling: s.limits.Ceiling}
	p.WithinCeil = p.PeakRSS <= p.Ceiling
	if res.Validity != nil {
		p.Verdict = res.Validity.Verdict
	}
	if keys > 0 {
		p.WorkingSet = int64(keys) * s.itemWeight
	}
	main := "item"
	if w.hello {
		main = "hello"
	}
	if t, ok := res.Transaction(main); ok {
		p.ItemTPS, p.P50Ms, p.P90Ms, p.P99Ms = t.TPS, t.P50Ms, t.P90Ms, t.P99Ms
	}
	if t, ok := res.Transaction("otherwork"); ok {
		p.OtherTPS = t.TPS
	}
	// name the point's transactions after it, so one results file holds them all
	for i := range res.Transactions {
		t := &res.Transactions[i]
		switch {
		case phase == "baseline":
			t.Name += "@" + strconv.Itoa(s.baselines)
		case phase == "mix":
			t.Name = "mix-" + t.Name + "@" + strconv.Itoa(keys)
		default:
			t.Name = t.Name + "@" + strconv.Itoa(keys)
		}
	}
	for i := range res.Errors {
		res.Errors[i].Transaction = label + " " + res.Errors[i].Transaction
	}
	if phase == "baseline" {
		s.baselines++
	}
	return p, res, nil
}

// pointPeak is a point's peak RSS from the sampler's peak and whether the kernel's high-water
// mark was reset at the point's start. Only then is the mark this point's own (and it catches
// spikes between samples); otherwise it is the whole process's, data load and earlier points
// included, and the samples are all there is.
func pointPeak(sampled int64, reset bool) (int64, string) {
	if !reset {
		return sampled, PeakSampled
	}
	_, hwm := readRSS()
	return max(sampled, hwm), PeakKernel
}

// warm requests every key of the range once, Threads at a time, so the measured window starts
// with the cache holding as much of the range as fits.
func (s *sweeper) warm(ctx context.Context, base string, keys int) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errc := make(chan error, s.cfg.Users)
	for i := 0; i < s.cfg.Users; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 32<<10)
			for {
				id := next.Add(1)
				if id > int64(keys) || ctx.Err() != nil {
					return
				}
				status, _, err := getPage(ctx, s.client, itemURL(base, int(id)), buf)
				if err == nil && status != http.StatusOK {
					err = fmt.Errorf("GET item %d: status %d", id, status)
				}
				if err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	if err := <-errc; err != nil {
		return err
	}
	return ctx.Err()
}

// combine folds the points' results into out: transactions side by side, totals merged. A
// point's histogram that cannot be merged is an error, as in a distributed run's merge.
func combine(out *report.Results, parts []*report.Results) error {
	var steady float64
	var tp, tf, ts int64
	total := newHist()
	sec := 0
	for _, r := range parts {
		out.Transactions = append(out.Transactions, r.Transactions...)
		for _, t := range r.Transactions {
			if err := recorder.MergeTransaction(total, t); err != nil {
				return fmt.Errorf("sweep point results: %w", err)
			}
			tp += t.Pass
			tf += t.Errors
			ts += t.Stop
		}
		steady += r.SteadySeconds
		out.Hits += r.Hits
		out.Bytes += r.Bytes
		for k, v := range r.StatusCodes {
			out.StatusCodes[k] += v
		}
		out.Errors = append(out.Errors, r.Errors...)
		for _, p := range r.Series {
			p.Second += sec
			out.Series = append(out.Series, p)
		}
		sec += len(r.Series)
		out.Notes = append(out.Notes, r.Notes...)
		out.Phases.RampUpSeconds += r.Phases.RampUpSeconds
		out.Phases.SteadySeconds += r.Phases.SteadySeconds
		out.Phases.RampDownSeconds += r.Phases.RampDownSeconds
	}
	out.SteadySeconds = steady
	out.Total = summarize(total, tp, tf, ts, steady)
	if steady > 0 {
		out.HitsPerSec = float64(out.Hits) / steady
		out.BytesPerSec = float64(out.Bytes) / steady
	}
	out.Notes = append(out.Notes, "each point ran against a freshly started application and cache; the total row merges all points")
	return nil
}

// workload is the sweep's virtual users: each requests the item page for a uniformly random key
// in 1..keys (or, in the mix, the first otherUsers users request the other-work page).
type workload struct {
	think      scenario.Think
	base       string
	client     *http.Client
	keys       int
	otherUsers int
	hello      bool
	seed       uint64
}

func (w *workload) NewUser(id int) load.User {
	return &user{w: w, other: id < w.otherUsers, rng: rand.New(rand.NewPCG(w.seed, uint64(id)+1)), buf: make([]byte, 32<<10)}
}

type user struct {
	w     *workload
	other bool
	rng   *rand.Rand
	buf   []byte
}

func (u *user) Iterate(ctx context.Context, it *load.Iteration) error {
	if u.w.think.Kind != scenario.ThinkNone {
		defer func() { it.Think(ctx, u.w.think.Sample(u.rng)) }()
	}
	switch {
	case u.w.hello:
		return u.request(ctx, it, "hello", u.w.base+"/cacheperf/hello", "Hello, World!")
	case u.other:
		return u.request(ctx, it, "otherwork", u.w.base+"/cacheperf/otherwork", "Image Content Type")
	default:
		return u.request(ctx, it, "item", itemURL(u.w.base, 1+u.rng.IntN(u.w.keys)), "The image byte at index")
	}
}
