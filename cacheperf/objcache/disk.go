package objcache

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/tradebench/tradebench/cacheperf/blobstore"
)

// diskTier is the CachePerf paper's "offload to disk": entries evicted from memory are written to files in
// a directory, one file per entry, with an in-memory index in LRU order. The files' bytes are
// bounded; the least recently used files go first. Files are named id-seq so a reader never sees
// a file half-replaced (a replacement is a new name; the old file is removed after).
type diskTier struct {
	dir    string
	budget int64
	now    func() time.Time

	mu    sync.Mutex
	lru   *list.List // front = most recently used; values *diskEntry
	idx   map[int64]*list.Element
	bytes int64
	seq   uint64

	queue   chan spillJob
	window  *semaphore.Weighted
	wg      sync.WaitGroup
	closing chan struct{}

	pending atomic.Int64 // spills queued or being written

	hits, misses, spills, spillDrops, evictions, writeErrors atomic.Int64
}

type diskEntry struct {
	id      int64
	file    string
	size    int64 // file bytes
	blob    int64 // blob bytes (what a read pins)
	expires time.Time
}

type spillJob struct {
	it      *blobstore.Item
	expires time.Time
	release func()
}

// DiskStats describes the disk tier.
type DiskStats struct {
	Dir         string `json:"dir"`
	Entries     int64  `json:"entries"`
	Bytes       int64  `json:"bytes"`
	Budget      int64  `json:"budget_bytes"`
	Hits        int64  `json:"hits"`
	Misses      int64  `json:"misses"`
	Spills      int64  `json:"spills"`
	SpillDrops  int64  `json:"spill_drops"` // evicted entries not spilled: the window was full
	Evictions   int64  `json:"evictions"`
	WriteErrors int64  `json:"write_errors"`
}

const diskSuffix = ".cpitem"

// openDiskTier creates dir if needed and removes tier files a previous run left (only files
// with the tier's suffix, so a mistaken directory loses nothing else).
func openDiskTier(dir string, budget int64, now func() time.Time) (*diskTier, error) {
	if budget < 1<<20 {
		return nil, fmt.Errorf("disk tier size must be at least 1MB, got %d bytes", budget)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("disk tier: %w", err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("disk tier: %w", err)
	}
	for _, e := range ents {
		if n := e.Name(); strings.HasSuffix(n, diskSuffix) || strings.HasSuffix(n, diskSuffix+".tmp") {
			if err := os.Remove(filepath.Join(dir, n)); err != nil {
				return nil, fmt.Errorf("disk tier: clean: %w", err)
			}
		}
	}
	return &diskTier{dir: dir, budget: budget, now: now, lru: list.New(), idx: map[int64]*list.Element{}, closing: make(chan struct{})}, nil
}

// startSpiller starts the writer goroutine. Evicted items wait for it holding window permits.
func (d *diskTier) startSpiller(window *semaphore.Weighted) {
	d.window = window
	d.queue = make(chan spillJob, 1024)
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		for {
			select {
			case j := <-d.queue:
				d.put(j.it, j.expires)
				j.release()
				d.pending.Add(-1)
			case <-d.closing:
				for {
					select {
					case j := <-d.queue:
						j.release()
						d.pending.Add(-1)
					default:
						return
					}
				}
			}
		}
	}()
}

// spill queues an evicted item for writing. It never blocks (it may run under the memory
// cache's eviction lock): with the window full or the queue full, the item is dropped.
func (d *diskTier) spill(it *blobstore.Item, expires time.Time) {
	d.mu.Lock()
	if el, ok := d.idx[it.ID]; ok { // already on disk (promoted earlier): just touch it
		d.lru.MoveToFront(el)
		d.mu.Unlock()
		return
	}
	d.mu.Unlock()
	n := min(max(int64(len(it.Data)), 1), d.budget)
	if !d.window.TryAcquire(n) {
		d.spillDrops.Add(1)
		return
	}
	var once atomic.Bool
	rel := func() {
		if once.CompareAndSwap(false, true) {
			d.window.Release(n)
		}
	}
	d.pending.Add(1)
	select {
	case d.queue <- spillJob{it: it, expires: expires, release: rel}:
	default:
		d.pending.Add(-1)
		rel()
		d.spillDrops.Add(1)
	}
}

// put writes it to a new file and indexes it, evicting least recently used files over budget.
func (d *diskTier) put(it *blobstore.Item, expires time.Time) {
	size := int64(encodedLen(it))
	if size > d.budget {
		d.spillDrops.Add(1)
		return
	}
	d.mu.Lock()
	d.seq++
	name := filepath.Join(d.dir, strconv.FormatInt(it.ID, 10)+"-"+strconv.FormatUint(d.seq, 10)+diskSuffix)
	d.mu.Unlock()
	if err := writeFileAtomic(name, it, expires); err != nil {
		d.writeErrors.Add(1)
		return
	}
	var remove []string
	d.mu.Lock()
	if el, ok := d.idx[it.ID]; ok {
		old := el.Value.(*diskEntry)
		d.lru.Remove(el)
		d.bytes -= old.size
		remove = append(remove, old.file)
	}
	d.idx[it.ID] = d.lru.PushFront(&diskEntry{id: it.ID, file: name, size: size, blob: int64(len(it.Data)), expires: expires})
	d.bytes += size
	for d.bytes > d.budget {
		el := d.lru.Back()
		e := el.Value.(*diskEntry)
		d.lru.Remove(el)
		delete(d.idx, e.id)
		d.bytes -= e.size
		remove = append(remove, e.file)
		d.evictions.Add(1)
	}
	d.mu.Unlock()
	d.spills.Add(1)
	for _, f := range remove {
		os.Remove(f)
	}
}

func writeFileAtomic(name string, it *blobstore.Item, expires time.Time) error {
	tmp := name + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if err := encodeItem(f, it, expires); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, name)
}

// lookup finds id's live entry and marks it used; an expired one is dropped.
func (d *diskTier) lookup(id int64) (diskEntry, bool) {
	d.mu.Lock()
	el, ok := d.idx[id]
	if !ok {
		d.mu.Unlock()
		d.misses.Add(1)
		return diskEntry{}, false
	}
	e := el.Value.(*diskEntry)
	if !d.now().Before(e.expires) {
		d.lru.Remove(el)
		delete(d.idx, id)
		d.bytes -= e.size
		d.mu.Unlock()
		os.Remove(e.file)
		d.misses.Add(1)
		return diskEntry{}, false
	}
	d.lru.MoveToFront(el)
	cp := *e
	d.mu.Unlock()
	return cp, true
}

// read loads an entry's file. A file removed since lookup is a miss.
func (d *diskTier) read(e diskEntry) (*blobstore.Item, error) {
	f, err := os.Open(e.file)
	if err != nil {
		d.misses.Add(1)
		return nil, err
	}
	defer f.Close()
	it, _, err := decodeItem(f, e.blob)
	if err != nil {
		d.misses.Add(1)
		return nil, err
	}
	if it.ID != e.id {
		d.misses.Add(1)
		return nil, errors.New("disk tier: file holds another item")
	}
	d.hits.Add(1)
	return it, nil
}

func (d *diskTier) remove(id int64) {
	d.mu.Lock()
	el, ok := d.idx[id]
	if !ok {
		d.mu.Unlock()
		return
	}
	e := el.Value.(*diskEntry)
	d.lru.Remove(el)
	delete(d.idx, id)
	d.bytes -= e.size
	d.mu.Unlock()
	os.Remove(e.file)
}

func (d *diskTier) stats() DiskStats {
	d.mu.Lock()
	n, b := int64(len(d.idx)), d.bytes
	d.mu.Unlock()
	return DiskStats{Dir: d.dir, Entries: n, Bytes: b, Budget: d.budget, Hits: d.hits.Load(), Misses: d.misses.Load(),
		Spills: d.spills.Load(), SpillDrops: d.spillDrops.Load(), Evictions: d.evictions.Load(), WriteErrors: d.writeErrors.Load()}
}

// flush waits until every queued spill is written (tests, and the stats page's exact numbers).
func (d *diskTier) flush(ctx context.Context) error {
	for d.pending.Load() > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
	return nil
}

// close stops the spiller and removes the tier's files.
func (d *diskTier) close() error {
	close(d.closing)
	d.wg.Wait()
	d.mu.Lock()
	defer d.mu.Unlock()
	var err error
	for _, el := range d.idx {
		err = errors.Join(err, os.Remove(el.Value.(*diskEntry).file))
	}
	d.idx = map[int64]*list.Element{}
	d.lru.Init()
	d.bytes = 0
	return err
}
