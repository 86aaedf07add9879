package blobstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

type pgStore struct {
	pool *pgxpool.Pool
}

func openPostgres(ctx context.Context, dsn string) (*pgStore, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres DSN: %w", err)
	}
	// Bounded like the SQLite pool: each connection holds receive buffers as big as a blob.
	cfg.MaxConns = 16
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	return &pgStore{pool: pool}, nil
}

func (s *pgStore) Kind() string { return "postgres" }
func (s *pgStore) Close() error { s.pool.Close(); return nil }

func (s *pgStore) Meta(ctx context.Context, id int64) (Meta, error) {
	m := Meta{ID: id}
	err := s.pool.QueryRow(ctx, `SELECT name, content_type, size FROM `+table+` WHERE id = $1`, id).
		Scan(&m.Name, &m.ContentType, &m.Size)
	if errors.Is(err, pgx.ErrNoRows) {
		return m, ErrNotFound
	}
	if err != nil {
		return m, fmt.Errorf("read item %d: %w", id, err)
	}
	return m, nil
}

func (s *pgStore) Get(ctx context.Context, id int64) (*Item, error) {
	it := &Item{Meta: Meta{ID: id}}
	err := s.pool.QueryRow(ctx, `SELECT name, content_type, size, data FROM `+table+` WHERE id = $1`, id).
		Scan(&it.Name, &it.ContentType, &it.Size, &it.Data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read item %d: %w", id, err)
	}
	return it, nil
}

func (s *pgStore) ReadAt(ctx context.Context, id, off int64, n int) ([]byte, error) {
	if off < 0 || n < 0 {
		return nil, fmt.Errorf("read item %d: bad range %d+%d", id, off, n)
	}
	var b []byte
	err := s.pool.QueryRow(ctx, `SELECT substring(data from $1 for $2) FROM `+table+` WHERE id = $3`, off+1, n, id).Scan(&b)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read item %d: %w", id, err)
	}
	return b, nil
}

func (s *pgStore) Put(ctx context.Context, it *Item) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO `+table+` (id, name, content_type, size, data) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, content_type = excluded.content_type, size = excluded.size, data = excluded.data`,
		it.ID, it.Name, it.ContentType, int64(len(it.Data)), it.Data)
	if err != nil {
		return fmt.Errorf("put item %d: %w", it.ID, err)
	}
	return nil
}

func (s *pgStore) Count(ctx context.Context) (n, maxID int64, err error) {
	err = s.pool.QueryRow(ctx, `SELECT count(*), coalesce(max(id), 0) FROM `+table).Scan(&n, &maxID)
	if err != nil {
		return 0, 0, fmt.Errorf("count items (was the database loaded with 'tradebench cacheperf load'?): %w", err)
	}
	return n, maxID, nil
}

func (s *pgStore) Load(ctx context.Context, cfg LoadConfig) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	for _, stmt := range []string{
		`DROP TABLE IF EXISTS ` + table,
		`CREATE TABLE ` + table + ` (id bigint PRIMARY KEY, name text NOT NULL, content_type text NOT NULL, size bigint NOT NULL, data bytea NOT NULL)`,
		// The blobs are random bytes: skip TOAST's futile compression attempt on write and read.
		`ALTER TABLE ` + table + ` ALTER COLUMN data SET STORAGE EXTERNAL`,
	} {
		if _, err := s.pool.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("load: %s: %w", stmt, err)
		}
	}
	gen := startGenerator(ctx, cfg)
	defer gen.stop()
	batch := batchItems(cfg.Size)
	done := 0
	for done < cfg.Items {
		n := min(batch, cfg.Items-done)
		src := &copySource{gen: gen, left: n, size: cfg.Size}
		if _, err := s.pool.CopyFrom(ctx, pgx.Identifier{table}, []string{"id", "name", "content_type", "size", "data"}, src); err != nil {
			return fmt.Errorf("load: copy: %w", err)
		}
		src.release()
		if src.err != nil {
			return src.err
		}
		done += n
		cfg.progress(done)
	}
	if _, err := s.pool.Exec(ctx, `ANALYZE `+table); err != nil {
		return fmt.Errorf("load: analyze: %w", err)
	}
	return nil
}

// copySource feeds generated items to COPY; a row's buffer is recycled when the next row is
// asked for, by which time pgx has encoded it.
type copySource struct {
	gen  *generator
	left int
	size int64
	cur  *generated
	err  error
}

func (c *copySource) release() {
	if c.cur != nil {
		c.gen.recycle(c.cur)
		c.cur = nil
	}
}

func (c *copySource) Next() bool {
	c.release()
	if c.left == 0 {
		return false
	}
	g, ok := c.gen.next()
	if !ok {
		c.err = errors.New("load: interrupted")
		return false
	}
	c.cur = g
	c.left--
	return true
}

func (c *copySource) Values() ([]any, error) {
	return []any{c.cur.id, ItemName(c.cur.id), ContentType, c.size, c.cur.buf}, nil
}

func (c *copySource) Err() error { return c.err }
