package blobstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

const table = "cacheperf_items"

type sqliteStore struct {
	db   *sql.DB
	path string
}

func openSQLite(path string) (*sqliteStore, error) {
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "synchronous(NORMAL)")
	// Blobs are read once per miss and live in the object cache after: a big SQLite page cache
	// would only duplicate them outside the Go heap, where no memory limit reaches. Keep each
	// connection's page cache at 512KB and SQLite's whole heap softly at 16MB.
	q.Add("_pragma", "cache_size(-512)")
	q.Add("_pragma", "soft_heap_limit(16777216)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	// A handful of connections: enough readers for a 40-thread sweep's misses, few enough that
	// SQLite's per-connection memory stays a small, fixed part of the overhead.
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(8)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	return &sqliteStore{db: db, path: path}, nil
}

func (s *sqliteStore) Kind() string { return "sqlite" }
func (s *sqliteStore) Close() error { return s.db.Close() }

func (s *sqliteStore) Meta(ctx context.Context, id int64) (Meta, error) {
	m := Meta{ID: id}
	err := s.db.QueryRowContext(ctx, `SELECT name, content_type, size FROM `+table+` WHERE id = ?`, id).
		Scan(&m.Name, &m.ContentType, &m.Size)
	if errors.Is(err, sql.ErrNoRows) {
		return m, ErrNotFound
	}
	if err != nil {
		return m, fmt.Errorf("read item %d: %w", id, err)
	}
	return m, nil
}

func (s *sqliteStore) Get(ctx context.Context, id int64) (*Item, error) {
	it := &Item{Meta: Meta{ID: id}}
	err := s.db.QueryRowContext(ctx, `SELECT name, content_type, size, data FROM `+table+` WHERE id = ?`, id).
		Scan(&it.Name, &it.ContentType, &it.Size, &it.Data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read item %d: %w", id, err)
	}
	return it, nil
}

func (s *sqliteStore) ReadAt(ctx context.Context, id, off int64, n int) ([]byte, error) {
	if off < 0 || n < 0 {
		return nil, fmt.Errorf("read item %d: bad range %d+%d", id, off, n)
	}
	var b []byte
	var present int
	err := s.db.QueryRowContext(ctx, `SELECT 1, substr(data, ?, ?) FROM `+table+` WHERE id = ?`, off+1, n, id).Scan(&present, &b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read item %d: %w", id, err)
	}
	return b, nil
}

func (s *sqliteStore) Put(ctx context.Context, it *Item) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO `+table+` (id, name, content_type, size, data) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, content_type = excluded.content_type, size = excluded.size, data = excluded.data`,
		it.ID, it.Name, it.ContentType, int64(len(it.Data)), it.Data)
	if err != nil {
		return fmt.Errorf("put item %d: %w", it.ID, err)
	}
	return nil
}

func (s *sqliteStore) Count(ctx context.Context) (n, maxID int64, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT count(*), coalesce(max(id), 0) FROM `+table).Scan(&n, &maxID)
	if err != nil {
		return 0, 0, fmt.Errorf("count items (was the database loaded with 'tradebench cacheperf load'?): %w", err)
	}
	return n, maxID, nil
}

func (s *sqliteStore) Load(ctx context.Context, cfg LoadConfig) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	// The load is a rebuild: durability of half-loaded data does not matter, speed does.
	for _, stmt := range []string{
		`PRAGMA synchronous = OFF`,
		`DROP TABLE IF EXISTS ` + table,
		`CREATE TABLE ` + table + ` (id INTEGER PRIMARY KEY, name TEXT NOT NULL, content_type TEXT NOT NULL, size INTEGER NOT NULL, data BLOB NOT NULL)`,
	} {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("load: %s: %w", stmt, err)
		}
	}
	defer conn.ExecContext(context.Background(), `PRAGMA synchronous = NORMAL`)

	gen := startGenerator(ctx, cfg)
	defer gen.stop()
	batch := batchItems(cfg.Size)
	done := 0
	for done < cfg.Items {
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("load: %w", err)
		}
		ins, err := tx.PrepareContext(ctx, `INSERT INTO `+table+` (id, name, content_type, size, data) VALUES (?, ?, ?, ?, ?)`)
		if err != nil {
			tx.Rollback()
			return fmt.Errorf("load: %w", err)
		}
		for k := 0; k < batch && done < cfg.Items; k++ {
			g, ok := gen.next()
			if !ok {
				ins.Close()
				tx.Rollback()
				return ctx.Err()
			}
			_, err := ins.ExecContext(ctx, g.id, ItemName(g.id), ContentType, cfg.Size, g.buf)
			gen.recycle(g)
			if err != nil {
				ins.Close()
				tx.Rollback()
				return fmt.Errorf("load item %d: %w", g.id, err)
			}
			done++
		}
		ins.Close()
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("load: commit: %w", err)
		}
		cfg.progress(done)
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return fmt.Errorf("load: checkpoint: %w", err)
	}
	return nil
}

// batchItems is how many items go in one transaction: about 64 MiB of blobs, at least 1.
func batchItems(size int64) int {
	n := int((64 << 20) / size)
	if n < 1 {
		n = 1
	}
	if n > 5000 {
		n = 5000
	}
	return n
}
