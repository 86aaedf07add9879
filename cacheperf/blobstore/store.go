// Package blobstore is CachePerf's item storage: one table of items (id, name, content type, size,
// blob) in SQLite or PostgreSQL — the CachePerf paper's "Image" table. It knows nothing of caching or HTTP.
package blobstore

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"

	"github.com/tradebench/tradebench/internal/dsn"
	"github.com/tradebench/tradebench/internal/setting"
)

// ErrNotFound is returned for an id that is not in the table.
var ErrNotFound = errors.New("item not found")

// ContentType is the content type every generated item carries (the CachePerf paper stored JPEGs).
const ContentType = "image/jpeg"

// Meta is an item without its blob.
type Meta struct {
	ID          int64
	Name        string
	ContentType string
	Size        int64 // blob length in bytes
}

// Item is one record with its blob: the object the CachePerf paper's applications cache.
type Item struct {
	Meta
	Data []byte
}

// Store reads and loads items. Implementations are safe for concurrent use.
type Store interface {
	// Meta returns the item's columns without the blob (cheap: lets the caller decide whether and
	// how to load the blob before any of it is in memory).
	Meta(ctx context.Context, id int64) (Meta, error)
	// Get returns the whole item, blob included.
	Get(ctx context.Context, id int64) (*Item, error)
	// ReadAt returns up to n bytes of the blob from offset off (0-based); fewer at the end.
	ReadAt(ctx context.Context, id, off int64, n int) ([]byte, error)
	// Count returns the number of items and the largest id.
	Count(ctx context.Context) (n, maxID int64, err error)
	// Put inserts or replaces one item (the table must exist: Load creates it).
	Put(ctx context.Context, it *Item) error
	// Load replaces the table's contents with cfg.Items generated items.
	Load(ctx context.Context, cfg LoadConfig) error
	// Kind names the engine ("sqlite" or "postgres").
	Kind() string
	Close() error
}

// Open opens the store a DSN names (see package dsn): "sqlite:PATH" or "postgres://…".
func Open(ctx context.Context, db string) (Store, error) {
	driver, target, err := dsn.Parse(db)
	if err != nil {
		return nil, err
	}
	if driver == dsn.Postgres {
		return openPostgres(ctx, target)
	}
	return openSQLite(target)
}

// LoadConfig says what Load generates.
type LoadConfig struct {
	Items int   // number of items, ids 1..Items (the CachePerf paper picks ids from 1)
	Size  int64 // blob bytes per item
	Seed  uint64
	// Progress, if set, is told the items written so far of Items after every batch (the
	// command line's progress printer, driver/progress.Count, takes it as it is).
	Progress func(done, total int64)
}

// progress tells cfg.Progress, if any, that done items are written.
func (c LoadConfig) progress(done int) {
	if c.Progress != nil {
		c.Progress(int64(done), int64(c.Items))
	}
}

// Validate reports what Load cannot generate: a *setting.Error names the LoadConfig field.
func (c LoadConfig) Validate() error {
	if c.Items < 1 {
		return setting.Errorf("Items", "must be at least 1, got %d", c.Items)
	}
	if c.Size < 16 || c.Size > 1<<30 {
		return setting.Errorf("Size", "must be between 16B and 1GB, got %d bytes", c.Size)
	}
	return nil
}

// ItemName is the generated name of item id.
func ItemName(id int64) string { return "Image" + strconv.FormatInt(id, 10) + ".jpg" }

// FillBlob fills b with item id's deterministic content: a JPEG start-of-image marker, the id
// (so every item differs even with a degenerate generator), pseudo-random bytes from a stream
// keyed by (seed, id), and an end-of-image marker.
func FillBlob(b []byte, seed uint64, id int64) {
	var key [32]byte
	for i := 0; i < 8; i++ {
		key[i] = byte(seed >> (8 * i))
		key[8+i] = byte(uint64(id) >> (8 * i))
	}
	key[16] = 'c'
	key[17] = 'p'
	rand.NewChaCha8(key).Read(b)
	if len(b) >= 16 {
		copy(b, []byte{0xFF, 0xD8, 0xFF, 0xE0})
		for i := 0; i < 8; i++ {
			b[4+i] = byte(uint64(id) >> (8 * i))
		}
		b[len(b)-2], b[len(b)-1] = 0xFF, 0xD9
	}
}
