package objcache

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tradebench/tradebench/cacheperf/blobstore"
	"github.com/tradebench/tradebench/internal/testing/racetest"
)

// manualClock is a clock the test moves by hand, for expiry without sleeping.
type manualClock struct{ ns atomic.Int64 }

func newManualClock() *manualClock {
	c := &manualClock{}
	c.ns.Store(time.Now().UnixNano())
	return c
}
func (c *manualClock) NowNano() int64                      { return c.ns.Load() }
func (c *manualClock) Tick(time.Duration) <-chan time.Time { return nil }
func (c *manualClock) Now() time.Time                      { return time.Unix(0, c.ns.Load()) }
func (c *manualClock) Advance(d time.Duration)             { c.ns.Add(int64(d)) }

// loadedStore is a real SQLite store with n items of size bytes.
func loadedStore(t testing.TB, n int, size int64) blobstore.Store {
	t.Helper()
	st, err := blobstore.Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "items.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Load(context.Background(), blobstore.LoadConfig{Items: n, Size: size, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	return st
}

func newCache(t testing.TB, cfg Config, st blobstore.Store) *Cache {
	t.Helper()
	c, err := New(cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func get(t testing.TB, c *Cache, id int64) Result {
	t.Helper()
	r, err := c.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("Get(%d): %v", id, err)
	}
	return r
}

// windowIdle checks every window permit was given back.
func windowIdle(t *testing.T, c *Cache) {
	t.Helper()
	if !c.window.TryAcquire(c.cfg.Window) {
		t.Fatal("window permits leaked: the whole window cannot be acquired")
	}
	c.window.Release(c.cfg.Window)
}

func TestHitMissAndContent(t *testing.T) {
	st := loadedStore(t, 10, 4096)
	c := newCache(t, Config{Budget: 8 << 20}, st)
	r := get(t, c, 3)
	if r.Source != SourceDB {
		t.Fatalf("first Get source = %v, want db", r.Source)
	}
	want := make([]byte, 4096)
	blobstore.FillBlob(want, 1, 3)
	if r.Item.ID != 3 || r.Item.Name != blobstore.ItemName(3) || !bytes.Equal(r.Item.Data, want) {
		t.Fatalf("item from db wrong: %+v", r.Item.Meta)
	}
	r2 := get(t, c, 3)
	if r2.Source != SourceMemory || r2.Item != r.Item {
		t.Fatalf("second Get source = %v (same object %v), want the cached object from memory", r2.Source, r2.Item == r.Item)
	}
	if _, err := c.Get(context.Background(), 99); !errors.Is(err, blobstore.ErrNotFound) {
		t.Fatalf("Get(unknown) error = %v, want ErrNotFound", err)
	}
	s := c.Stats()
	if s.Hits != 1 || s.Loads != 1 || s.Misses != 1 || s.Entries != 1 || s.LoadErrors != 0 {
		t.Fatalf("stats = %+v", s)
	}
	if wantW := Weight(r.Item); s.Bytes != wantW || wantW != 4096+int64(len(r.Item.Name))+int64(len(blobstore.ContentType))+EntryOverhead {
		t.Fatalf("accounted bytes = %d, want %d", s.Bytes, wantW)
	}
	if s.HitRatio() != 0.5 {
		t.Fatalf("hit ratio = %v, want 0.5", s.HitRatio())
	}
	windowIdle(t, c)
}

func TestExpiry(t *testing.T) {
	st := loadedStore(t, 3, 1024)
	clk := newManualClock()
	c := newCache(t, Config{Budget: 4 << 20, clock: clk, now: clk.Now}, st)
	get(t, c, 1)
	clk.Advance(DefaultTTL - time.Minute)
	if r := get(t, c, 1); r.Source != SourceMemory {
		t.Fatalf("before 8h: source %v, want memory", r.Source)
	}
	clk.Advance(2 * time.Minute) // past 8 hours after the write (reads do not extend it)
	if r := get(t, c, 1); r.Source != SourceDB {
		t.Fatalf("after 8h: source %v, want a reload from db", r.Source)
	}
	c.CleanUp()
	if s := c.Stats(); s.Expired != 1 || s.Loads != 2 {
		t.Fatalf("stats after expiry = %+v", s)
	}
	if r := get(t, c, 1); r.Source != SourceMemory {
		t.Fatalf("after reload: source %v, want memory", r.Source)
	}
}

func TestEvictionKeepsBytesWithinBudget(t *testing.T) {
	const size = 50 << 10
	st := loadedStore(t, 200, size)
	budget := int64(1 << 20) // room for about 20 items
	c := newCache(t, Config{Budget: budget}, st)
	for id := int64(1); id <= 200; id++ {
		get(t, c, id)
		// read before Stats, which would run a pending eviction pass
		if b := heldBytes(c); b > budget {
			t.Fatalf("after item %d the cache holds %d bytes, over its budget of %d", id, b, budget)
		}
		if b := c.Stats().Bytes; b > budget {
			t.Fatalf("after item %d the cache accounts %d bytes, over its budget of %d", id, b, budget)
		}
	}
	c.CleanUp()
	s := c.Stats()
	if s.Evictions == 0 || s.Entries >= 200 || s.Entries < 10 || s.Bytes > budget {
		t.Fatalf("after 200×50KB into 1MB: %+v", s)
	}
	if s.EvictedBytes < s.Evictions*size {
		t.Fatalf("evicted bytes not counted: %+v", s)
	}
	windowIdle(t, c)
}

func TestObjectOverLimitIsNeverCached(t *testing.T) {
	st := loadedStore(t, 1, 1024)
	ctx := context.Background()
	huge := &blobstore.Item{Meta: blobstore.Meta{ID: 2, Name: "huge", ContentType: "image/jpeg"}, Data: make([]byte, 3<<20)}
	if err := st.Put(ctx, huge); err != nil {
		t.Fatal(err)
	}
	c := newCache(t, Config{Budget: 2 << 20}, st) // budget smaller than the object
	for i := 0; i < 3; i++ {
		r := get(t, c, 2)
		if r.Source != SourceStream || r.Item.Data != nil || r.Item.Size != 3<<20 {
			t.Fatalf("object over the budget: source %v, data %d bytes, size %d; want streamed metadata only", r.Source, len(r.Item.Data), r.Item.Size)
		}
		r.Release()
	}
	if s := c.Stats(); s.Entries != 0 || s.Bytes != 0 || s.Rejected != 3 {
		t.Fatalf("stats = %+v", s)
	}
	windowIdle(t, c)
}

// TestBudgetHoldsUnderMixedSizes inserts far more than the budget in objects from 1KB to 3MB
// (some too big to cache) and checks the cache's accounting and the heap stay bounded. Under
// the race detector every size, the budget and the window are halved (objects from 512 B to
// 1.5 MB through an 8 MB cache, the window at its least, 1 MB): the same mix of small, cached,
// evicted and streamed objects for its eight readers to share, with half of the 300 MB the
// test writes and reads through the detector's instrumented copies (21.5 s of the race pass,
// its slowest test).
func TestBudgetHoldsUnderMixedSizes(t *testing.T) {
	ctx := context.Background()
	st := loadedStore(t, 1, 1024)
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 400
	scale := int64(1)
	if racetest.Enabled {
		scale = 2
	}
	var total int64
	for id := int64(1); id <= n; id++ {
		var size int64
		switch rng.IntN(4) {
		case 0:
			size = 1<<10 + rng.Int64N(16<<10) // small: headers matter
		case 1, 2:
			size = 64<<10 + rng.Int64N(512<<10)
		default:
			size = 1<<20 + rng.Int64N(2<<20) // large, some over the window
		}
		size /= scale
		b := make([]byte, size)
		blobstore.FillBlob(b, 3, id)
		if err := st.Put(ctx, &blobstore.Item{Meta: blobstore.Meta{ID: id, Name: blobstore.ItemName(id), ContentType: blobstore.ContentType}, Data: b}); err != nil {
			t.Fatal(err)
		}
		total += size
	}
	budget := int64(16<<20) / scale
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	c := newCache(t, Config{Budget: budget, Window: 2 << 20 / scale}, st) // objects over the window (2MB) are streamed
	lim := c.Limits()
	if total < 10*budget {
		t.Fatalf("test data %d bytes is not far more than the budget %d", total, budget)
	}
	// several concurrent readers, two passes, random order
	var wg sync.WaitGroup
	var maxAccounted atomic.Int64
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, 9))
			for i := 0; i < 2*n/8*2; i++ {
				res, err := c.Get(ctx, 1+r.Int64N(n))
				if err != nil {
					t.Error(err)
					return
				}
				res.Release()
				if b := c.Stats().Bytes; b > maxAccounted.Load() {
					maxAccounted.Store(b)
				}
			}
		}(uint64(w))
	}
	wg.Wait()
	c.CleanUp()
	s := c.Stats()
	if s.Bytes > budget {
		t.Fatalf("accounted %d bytes after clean-up, budget %d", s.Bytes, budget)
	}
	// Inserts not yet replayed by an eviction pass are outside the accounting (their loads' permits
	// cover them); what is accounted never passes the budget.
	if m := maxAccounted.Load(); m > budget {
		t.Fatalf("accounted bytes peaked at %d, over budget %d", m, budget)
	}
	if s.Evictions == 0 || s.Streamed == 0 {
		t.Fatalf("the mix did not exercise eviction and streaming: %+v", s)
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	growth := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	if growth > budget+lim.Window+4<<20 {
		t.Fatalf("heap grew by %d bytes after GC, over budget %d + window %d + 4MB", growth, budget, lim.Window)
	}
	t.Logf("inserted %d MB through a %d MB cache: accounted %d bytes (peak %d), heap growth %d bytes, %d evictions, %d streamed",
		total>>20, budget>>20, s.Bytes, maxAccounted.Load(), growth, s.Evictions, s.Streamed)
	windowIdle(t, c)
}

// heldBytes is the weight of every entry in the memory tier, including inserts no eviction pass
// has replayed yet (which the accounted weight, Stats().Bytes, leaves out). It runs no pass.
func heldBytes(c *Cache) int64 {
	var n int64
	for _, it := range c.mem.All() {
		n += Weight(it)
	}
	return n
}

// TestLoadKeepsPermitUntilBackWithinBudget: a load whose insert takes the cache over budget
// while another goroutine holds the eviction lock (here an iteration in eviction order) cannot
// run the eviction pass from Set. It must not give up its window permit, which covers the excess,
// before the pass has run: when Get returns, the cache holds at most its budget.
func TestLoadKeepsPermitUntilBackWithinBudget(t *testing.T) {
	const size = 256 << 10
	st := loadedStore(t, 4, size)
	budget := int64(1 << 20) // three items fit, the fourth does not
	c := newCache(t, Config{Budget: budget}, st)
	for id := int64(1); id <= 3; id++ {
		r := get(t, c, id)
		r.Release()
	}
	if b := heldBytes(c); b > budget || b < 3*size {
		t.Fatalf("three items of %d bytes in a %d-byte cache: it holds %d", size, budget, b)
	}
	locked, unlock, iterated := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(iterated)
		for range c.mem.Coldest() { // holds the eviction lock while it runs
			close(locked)
			<-unlock
			break
		}
	}()
	<-locked
	got := make(chan error, 1)
	go func() {
		r, err := c.Get(context.Background(), 4)
		r.Release()
		got <- err
	}()
	var err error
	select {
	case err = <-got:
		// returned with no eviction pass possible: nothing may hold more than the budget now
		if b := heldBytes(c); b > budget {
			t.Errorf("the load returned, its permit given back, while the cache held %d bytes, over its budget of %d", b, budget)
		}
		close(unlock)
	case <-time.After(200 * time.Millisecond):
		close(unlock) // the load waits for the pass, as it should
		err = <-got
	}
	<-iterated
	if err != nil {
		t.Fatal(err)
	}
	if b := heldBytes(c); b > budget {
		t.Errorf("after the load the cache holds %d bytes, over its budget of %d", b, budget)
	}
	windowIdle(t, c)
}

func TestConcurrentMissesLoadOnce(t *testing.T) {
	st := loadedStore(t, 5, 256<<10)
	for _, mode := range []string{ModeMemory, ModeNone} {
		t.Run(mode, func(t *testing.T) {
			c := newCache(t, Config{Mode: mode, Budget: 16 << 20}, st)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i := 0; i < 64; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					r, err := c.Get(context.Background(), 4)
					if err != nil {
						t.Error(err)
						return
					}
					if r.Item.ID != 4 || len(r.Item.Data) != 256<<10 {
						t.Errorf("got item %d with %d bytes", r.Item.ID, len(r.Item.Data))
					}
					r.Release()
				}()
			}
			close(start)
			wg.Wait()
			s := c.Stats()
			if mode == ModeMemory && s.Loads != 1 {
				t.Fatalf("64 concurrent misses on one key loaded it %d times, want 1", s.Loads)
			}
			if mode == ModeNone && (s.Loads < 1 || s.Loads > 64 || s.Entries != 0) {
				t.Fatalf("none mode stats %+v", s)
			}
			windowIdle(t, c)
		})
	}
}

func TestNoneModeAlwaysReadsTheStore(t *testing.T) {
	st := loadedStore(t, 2, 1024)
	c := newCache(t, Config{Mode: ModeNone}, st)
	for i := 0; i < 3; i++ {
		r := get(t, c, 1)
		if r.Source != SourceDB || !r.Pinned() {
			t.Fatalf("none mode: source %v pinned %v", r.Source, r.Pinned())
		}
		r.Release()
	}
	if s := c.Stats(); s.Loads != 3 || s.Hits != 0 || s.Limits.Budget != 0 {
		t.Fatalf("stats = %+v", s)
	}
	windowIdle(t, c)
}

func TestDiskTier(t *testing.T) {
	const size = 100 << 10
	st := loadedStore(t, 60, size)
	dir := t.TempDir()
	// a stale tier file from an earlier run, and an unrelated file that must survive the clean
	stale := filepath.Join(dir, "7-1"+diskSuffix)
	other := filepath.Join(dir, "keep.txt")
	os.WriteFile(stale, []byte("old"), 0o644)
	os.WriteFile(other, []byte("mine"), 0o644)

	budget, diskBudget := int64(1<<20), int64(2<<20)
	c := newCache(t, Config{Mode: ModeMemoryDisk, Budget: budget, DiskDir: dir, DiskBudget: diskBudget}, st)
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("stale tier file survived start: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Fatalf("unrelated file removed: %v", err)
	}
	ctx := context.Background()
	for id := int64(1); id <= 60; id++ {
		get(t, c, id)
		// Let the spiller write what this read evicted: with spills piling up faster than a
		// busy machine writes them, the tier drops them (by design) and the test would measure
		// the machine, not the tier.
		if err := c.disk.flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	c.CleanUp()
	if err := c.disk.flush(ctx); err != nil {
		t.Fatal(err)
	}
	s := c.Stats()
	if s.Disk == nil || s.Disk.Spills == 0 || s.Disk.Bytes > diskBudget || s.Disk.Evictions == 0 {
		t.Fatalf("disk tier after 6MB through 1MB memory + 2MB disk: %+v", s.Disk)
	}
	// the files on disk are exactly the index, and within budget
	var files int
	var onDisk int64
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if filepath.Ext(e.Name()) == diskSuffix {
			info, _ := e.Info()
			files++
			onDisk += info.Size()
		}
	}
	if int64(files) != s.Disk.Entries || onDisk != s.Disk.Bytes || onDisk > diskBudget {
		t.Fatalf("%d files of %d bytes on disk, index says %d entries of %d bytes (budget %d)", files, onDisk, s.Disk.Entries, s.Disk.Bytes, diskBudget)
	}
	// find an item that is on disk but not in memory: reading it promotes it back
	var promoted int64
	for id := int64(60); id >= 1; id-- {
		if _, inMem := c.mem.GetEntryQuietly(id); inMem {
			continue
		}
		if _, onD := c.disk.lookup(id); onD {
			promoted = id
			break
		}
	}
	if promoted == 0 {
		t.Fatal("no item found on disk only")
	}
	r := get(t, c, promoted)
	want := make([]byte, size)
	blobstore.FillBlob(want, 1, promoted)
	if r.Source != SourceDisk || r.Item.Name != blobstore.ItemName(promoted) || !bytes.Equal(r.Item.Data, want) {
		t.Fatalf("read of item %d from disk: source %v, content equal %v", promoted, r.Source, bytes.Equal(r.Item.Data, want))
	}
	// The memory tier's admission policy (W-TinyLFU) may turn away an item read only once or
	// twice in favour of one it values more; each read raises its frequency, so a hot item must
	// be back in memory within a few reads, and every read until then is a disk hit.
	diskReads := int64(1)
	for r2 := get(t, c, promoted); r2.Source != SourceMemory; r2 = get(t, c, promoted) {
		if r2.Source != SourceDisk || diskReads == 5 {
			t.Fatalf("read %d after promotion: source %v, want memory (or disk, for at most 5 reads)", diskReads, r2.Source)
		}
		diskReads++
	}
	if got := c.Stats().DiskHits; got != diskReads {
		t.Fatalf("disk hits = %d, want %d", got, diskReads)
	}
	if err := c.disk.flush(ctx); err != nil {
		t.Fatal(err)
	}
	windowIdle(t, c)
	// Close removes the tier's files
	c.Close()
	ents, _ = os.ReadDir(dir)
	for _, e := range ents {
		if filepath.Ext(e.Name()) == diskSuffix {
			t.Fatalf("tier file %s left after Close", e.Name())
		}
	}
}

func TestDiskTierExpiry(t *testing.T) {
	clk := newManualClock()
	d, err := openDiskTier(t.TempDir(), 4<<20, clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	it := &blobstore.Item{Meta: blobstore.Meta{ID: 5, Name: "n", ContentType: "t"}, Data: []byte("blob")}
	d.put(it, clk.Now().Add(time.Hour))
	if _, ok := d.lookup(5); !ok {
		t.Fatal("fresh entry not found")
	}
	clk.Advance(2 * time.Hour)
	if _, ok := d.lookup(5); ok {
		t.Fatal("expired entry found")
	}
	if s := d.stats(); s.Entries != 0 || s.Bytes != 0 {
		t.Fatalf("expired entry still indexed: %+v", s)
	}
}

func TestConfigValidation(t *testing.T) {
	st := loadedStore(t, 1, 64)
	for _, cfg := range []Config{
		{Mode: "bogus", Budget: 8 << 20},
		{Mode: ModeMemory, Budget: 1000},
		{Mode: ModeMemoryDisk, Budget: 8 << 20}, // no dir
		{Budget: 8 << 20, MaxObject: 64 << 20},
		{Budget: 8 << 20, TTL: -time.Second},
		{Mode: "redis://"},
	} {
		if c, err := New(cfg, st); err == nil {
			c.Close()
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
}

func TestCodecRoundTrip(t *testing.T) {
	it := &blobstore.Item{Meta: blobstore.Meta{ID: 42, Name: "Image42.jpg", ContentType: "image/jpeg"}, Data: []byte{1, 2, 3, 0xFF}}
	exp := time.Unix(1700000000, 5)
	var b bytes.Buffer
	if err := encodeItem(&b, it, exp); err != nil {
		t.Fatal(err)
	}
	if b.Len() != encodedLen(it) {
		t.Fatalf("encoded %d bytes, encodedLen says %d", b.Len(), encodedLen(it))
	}
	got, gotExp, err := decodeItem(bytes.NewReader(b.Bytes()), 0)
	if err != nil || got.ID != 42 || got.Name != it.Name || got.ContentType != it.ContentType || !bytes.Equal(got.Data, it.Data) || !gotExp.Equal(exp) || got.Size != 4 {
		t.Fatalf("round trip: %+v %v %v", got, gotExp, err)
	}
	if _, _, err := decodeItem(bytes.NewReader(b.Bytes()), 3); err == nil {
		t.Fatal("decode accepted a blob over its limit")
	}
	if _, _, err := decodeItem(bytes.NewReader(b.Bytes()[:b.Len()-1]), 0); err == nil {
		t.Fatal("decode accepted a truncated value")
	}
}
