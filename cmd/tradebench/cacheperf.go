package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"time"

	"github.com/tradebench/tradebench/bench/cacheperfjob"
	"github.com/tradebench/tradebench/cacheperf"
	"github.com/tradebench/tradebench/cacheperf/blobstore"
	"github.com/tradebench/tradebench/cacheperf/objcache"
	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/driver/progress"
	"github.com/tradebench/tradebench/internal/bytesize"
	"github.com/tradebench/tradebench/internal/cliflag"
	"github.com/tradebench/tradebench/internal/logsafe"
)

func init() {
	register(&command{name: "cacheperf", summary: "CachePerf: the middle-tier object cache benchmark (load, serve, sweep)", run: runCachePerf})
}

var cacheperfUsage = helpText("cacheperf.txt")

func runCachePerf(ctx context.Context, args []string) error {
	return cliflag.RunSubcommand(ctx, args, cacheperfUsage,
		cliflag.Subcommand{Name: "load", Run: cacheperfLoad}, cliflag.Subcommand{Name: "serve", Run: cacheperfServe}, cliflag.Subcommand{Name: "sweep", Run: cacheperfSweep})
}

// cacheFlags are the cache settings serve and sweep share.
type cacheFlags struct {
	mode     *string
	size     *cliflag.Size
	window   *cliflag.Size
	ttl      *time.Duration
	diskDir  *string
	diskSize *cliflag.Size
}

func addCacheFlags(fs *flag.FlagSet, defSize int64) *cacheFlags {
	return &cacheFlags{
		mode: fs.String("cache", objcache.ModeMemory, "cache mode: memory (in-process, bounded by --cache-size), none (every request reads the database), "+
			"memory+disk (entries evicted from memory spill to files in --disk-dir), redis://HOST:PORT[/DB] or memcached://HOST:PORT (a distributed cache)"),
		size: cliflag.AddSize(fs, "cache-size", defSize, "the in-memory cache's budget in bytes (e.g. 100MB, 1GB): blobs + names + 256 bytes per entry"),
		window: cliflag.AddSize(fs, "window", 0, "bytes of blobs in flight outside the cache (loads, spills, uncached responses); objects heavier than this are never cached "+
			"but streamed (default max(cache-size/16, 8MB))"),
		ttl:      fs.Duration("ttl", objcache.DefaultTTL, "an entry's lifetime after it is written (the CachePerf paper's 8 hours)"),
		diskDir:  fs.String("disk-dir", cacheperf.DefaultDiskDir, "memory+disk: the disk tier's directory (its *.cpitem files are deleted on start and exit)"),
		diskSize: cliflag.AddSize(fs, "disk-size", 0, "memory+disk: the disk tier's budget in bytes (default 4 × --cache-size)"),
	}
}

// cacheFlagNames names the flags that set objcache.Config's and blobstore.LoadConfig's fields:
// the libraries check the values, cmd names the flag.
var cacheFlagNames = cliflag.Names{"Mode": "cache", "Budget": "cache-size", "Window": "window", "TTL": "ttl", "Items": "items", "Size": "size"}

func (c *cacheFlags) config() (objcache.Config, error) {
	cfg := objcache.Config{Mode: *c.mode, Budget: c.size.N, Window: c.window.N, TTL: *c.ttl, DiskDir: *c.diskDir, DiskBudget: c.diskSize.N}
	if err := cfg.Validate(); err != nil {
		return cfg, cacheFlagNames.UsageError(err)
	}
	return cfg, nil
}

func cacheperfLoad(ctx context.Context, args []string) error {
	fs := cliflag.NewFlagSet("tradebench cacheperf load", "--db DSN [--items N] [--size 500KB]")
	cliflag.SetHelp(fs, helpText("cacheperf-load.txt"))
	db := fs.String("db", "", "the database: sqlite:PATH or postgres://user:pass@host/db (its cacheperf_items table is replaced)")
	items := fs.Int("items", cacheperf.DefaultItems, "number of items, ids 1..N (the CachePerf paper loaded 40,000)")
	size := cliflag.AddSize(fs, "size", cacheperf.DefaultItemSize, "blob size per item (e.g. 50KB, 500KB, 1MB; the CachePerf paper's images were 500KB)")
	seed := fs.Uint64("seed", 1, "generator seed: the same seed gives the same blobs")
	yes := addYes(fs)
	if err := cliflag.Parse(fs, args, false); err != nil {
		return err
	}
	if err := checkDSN(*db); err != nil {
		return err
	}
	p := progress.NewCount(os.Stderr, cliflag.IsTerminal(os.Stderr), "cacheperf load", "items")
	p.UnitBytes = size.N
	lc := blobstore.LoadConfig{Items: *items, Size: size.N, Seed: *seed, Progress: p.Update}
	if err := lc.Validate(); err != nil {
		return cacheFlagNames.UsageError(err)
	}
	if err := confirmSize(*yes, int64(*items), size.N, "the database"); err != nil {
		return err
	}
	if err := needDB(*db, true, ""); err != nil {
		return err
	}
	st, err := blobstore.Open(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	fmt.Fprintf(os.Stderr, "cacheperf load: %d items of %s (%s) into %s\n", *items, size, bytesize.Format(int64(*items)*size.N), st.Kind())
	start := time.Now()
	err = st.Load(ctx, lc)
	p.End()
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "cacheperf load: done in %.1fs\n", time.Since(start).Seconds())
	return nil
}

func cacheperfServe(ctx context.Context, args []string) error {
	fs := cliflag.NewFlagSet("tradebench cacheperf serve", "--db DSN [--cache-size 100MB] [--listen ADDR] [--cache MODE]")
	cliflag.SetHelp(fs, helpText("cacheperf-serve.txt"))
	db := fs.String("db", "", "the database loaded by 'tradebench cacheperf load': sqlite:PATH or postgres://…")
	listen := fs.String("listen", cacheperf.DefaultListen, "address to listen on (:8083 for all interfaces)")
	metricsListen := metricsListenFlag(fs)
	cf := addCacheFlags(fs, cacheperf.DefaultCacheSize)
	if err := cliflag.Parse(fs, args, false); err != nil {
		return err
	}
	if err := checkDSN(*db); err != nil {
		return err
	}
	cc, err := cf.config()
	if err != nil {
		return err
	}
	if err := needDB(*db, false, "load it first: tradebench cacheperf load --db "+*db); err != nil {
		return err
	}
	log := slog.New(logsafe.Handler(slog.NewTextHandler(os.Stderr, nil))) // request values cut and escaped
	srv, err := cacheperf.Start(ctx, cacheperf.Config{DB: *db, Cache: cc, Listen: *listen, SetMemoryLimit: true, Log: log, MetricsListen: *metricsListen})
	if err != nil {
		return err
	}
	return srv.Wait()
}

func cacheperfSweep(ctx context.Context, args []string) error {
	fs := cliflag.NewFlagSet("tradebench cacheperf sweep", "[--quick] [--db DSN] [--items N --size 500KB --cache-size 1GB] [--keys 500,1000,…] [--users 40] [--ramp-up D --duration D] [--other-work-mix 60] [--out FILE]")
	cliflag.SetHelp(fs, helpText("cacheperf-sweep.txt"))
	quick := fs.Bool("quick", false, "a laptop-sized run (about two minutes): 50KB items, a 25MB cache, keys 100…4000, mix keys 200…1000, 1s warm-up, 3s steady; flags given explicitly win")
	db := fs.String("db", "", "a database loaded by 'tradebench cacheperf load' (default: a temporary SQLite database, loaded with --items of --size, removed afterwards)")
	items := fs.Int("items", 0, "items to load into the temporary database (default: the largest key range)")
	size := cliflag.AddSize(fs, "size", cacheperfjob.DefaultItemSize, "blob size of the temporary database's items (the CachePerf paper's 500KB)")
	cf := addCacheFlags(fs, cacheperf.DefaultCacheSize)
	ks, mks := slices.Clone(cacheperfjob.PaperKeys), slices.Clone(cacheperfjob.PaperMixKeys)
	cliflag.IntsVar(fs, &ks, "keys", "unique-key ranges, one measured point each (the CachePerf paper's table)")
	cliflag.IntsVar(fs, &mks, "mix-keys", "unique-key ranges of the other-work mix")
	mix := fs.Int("other-work-mix", cacheperfjob.DefaultOtherWorkMix, "percent of threads requesting the other-work page in the mix (0 = no mix)")
	baseline := fs.Bool("baseline", true, "also measure GET /cacheperf/hello (\"Hello, World!\"), the HTTP stack's ceiling")
	seed := fs.Uint64("seed", 1, "seed for the generated items and the clients' key choices")
	yes := addYes(fs)
	var f pipelineFlags
	f.register(fs, driver.Phases{Users: cacheperfjob.DefaultThreads, RampUp: cacheperfjob.DefaultWarmup, Duration: cacheperfjob.DefaultSteady}, cacheperfjob.DefaultOut)
	if err := cliflag.Parse(fs, args, false); err != nil {
		return err
	}
	if *db != "" {
		if err := checkDSN(*db); err != nil {
			return err
		}
		if err := needDB(*db, false, "load it first: tradebench cacheperf load --db "+*db); err != nil {
			return err
		}
	}
	if f.out == "" {
		return cliflag.Errorf("--out must name a file")
	}
	d, err := f.config()
	if err != nil {
		return err
	}
	cc, err := cf.config()
	if err != nil {
		return err
	}
	cfg := cacheperfjob.Config{DB: *db, Items: *items, Size: size.N, Seed: *seed, Cache: cc, Phases: d.Phases,
		Keys: ks, MixKeys: mks, OtherWorkMix: *mix, Baseline: *baseline}
	if *quick {
		set := cliflag.Given(fs)
		cfg.SetQuick(func(field string) bool { return set[sweepFlags[field]] })
	}
	cfg.Log, _ = f.progress.Writer()
	if err := cfg.Validate(); err != nil {
		return sweepFlags.UsageError(err)
	}
	if *db == "" {
		if err := confirmSize(*yes, int64(cfg.TempItems()), cfg.Size, "the temporary database"); err != nil {
			return err
		}
	}
	res, err := cacheperfjob.Run(ctx, cfg, d)
	// A point over its memory ceiling fails the run (exit status 3, like a missed threshold), but
	// the sweep was done: its results are written and shown first.
	if res == nil {
		return sweepFlags.OrUsage(err)
	}
	if points, perr := cacheperfjob.PointsOf(res); perr == nil {
		cacheperfjob.WriteTable(os.Stdout, points)
	}
	return f.finish(res, err)
}

// sweepFlags names the flags that set cacheperfjob.Config's fields.
var sweepFlags = cliflag.Names{"Keys": "keys", "MixKeys": "mix-keys", "OtherWorkMix": "other-work-mix", "Items": "items", "Size": "size", "Repeat": "repeat"}.With(cacheFlagNames, phaseNames)

// confirmBytes is the largest database a cacheperf command writes without --yes: the paper's
// defaults (40,000 items of 500KB) are about 20GB, more than a laptop's disk may spare.
const confirmBytes = 4 << 30

func addYes(fs *flag.FlagSet) *bool {
	return fs.Bool("yes", false, fmt.Sprintf("confirm writing a database of more than %s (items × size)", bytesize.Format(confirmBytes)))
}

// confirmSize refuses, before anything is written, a database bigger than confirmBytes unless
// --yes: the size is said, and how to make it smaller.
func confirmSize(yes bool, items, size int64, what string) error {
	if total := items * size; total > confirmBytes && !yes {
		return cliflag.Errorf("%s would hold %d items × %s = %s: give --yes to write that much, or fewer --items or a smaller --size (--quick: a laptop-sized sweep)",
			what, items, bytesize.Format(size), bytesize.Format(total))
	}
	return nil
}
