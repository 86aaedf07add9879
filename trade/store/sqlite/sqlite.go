// Package sqlite is the embedded store: SQLite through modernc.org/sqlite (pure Go), in WAL
// mode. Writes go through one connection whose transactions begin IMMEDIATE, so writers queue
// in-process instead of failing with SQLITE_BUSY on a lock upgrade; reads use a pool of
// connections that WAL lets run alongside the writer. Import it for its side effect:
//
//	import _ "github.com/tradebench/tradebench/trade/store/sqlite"
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"time"

	msqlite "modernc.org/sqlite"

	"github.com/tradebench/tradebench/trade/store"
)

func init() { store.Register("sqlite", driver{}) }

type driver struct{}

func (driver) Open(ctx context.Context, path string) (store.Store, error) { return Open(ctx, path) }

// Store is an open SQLite database.
type Store struct {
	path string
	w    *sql.DB // exactly one connection: the single writer
	r    *sql.DB // readers
	ws   stmtCache
	rs   stmtCache
	q    // reads on the reader pool
}

// common pragmas: a writer waits (busy_timeout) rather than fails when another process holds
// the lock; NORMAL sync is durable across application crashes in WAL mode.
//
// No mmap_size: memory-mapped I/O cost more CPU than it saved here. A page read through the
// map is not kept in the connection's page cache, so SQLite parses its header again on every
// fetch (btreeInitPage); and in WAL mode a read transaction that finds another connection has
// written since its last one drops the whole map (munmap) and maps it again, which under
// DayTrader's mix (a write in every few requests, four reader connections) was 6 % of the
// server's CPU. Without it, pages come from each connection's page cache, or a pread(2) from
// the OS's (docs/benchmarks.md, "What the server's settings buy").
const pragmas = "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)" +
	"&_pragma=foreign_keys(0)&_pragma=cache_size(-32000)&_pragma=temp_store(MEMORY)"

// Open opens (creating if needed) the database file at path; path may carry ?options that
// are passed to the driver after tradebench's own.
func Open(ctx context.Context, path string) (*Store, error) {
	file, userOpts, _ := strings.Cut(path, "?")
	if file == "" {
		return nil, errors.New("sqlite: empty database path")
	}
	opts := pragmas
	if userOpts != "" {
		opts += "&" + userOpts
	}
	w, err := sql.Open("sqlite", file+"?"+opts+"&_txlock=immediate")
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	r, err := sql.Open("sqlite", file+"?"+opts)
	if err != nil {
		w.Close()
		return nil, err
	}
	n := max(4, 2*runtime.GOMAXPROCS(0))
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	s := &Store{path: file, w: w, r: r}
	s.q = q{s: s}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite %s: %w", file, err)
	}
	return s, nil
}

// Kind implements store.Store.
func (s *Store) Kind() string { return "sqlite" }

// ServerVersion implements store.Versioner: the SQLite library's version.
func (s *Store) ServerVersion(ctx context.Context) (string, error) {
	var v string
	if err := s.r.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&v); err != nil {
		return "", err
	}
	return "SQLite " + v, nil
}

// Close implements store.Store.
func (s *Store) Close() error {
	s.ws.close()
	s.rs.close()
	return errors.Join(s.r.Close(), s.w.Close())
}

const maxAttempts = 8

// Update implements store.Store. The writer pool has one connection, so in-process writers
// queue for it; SQLITE_BUSY (another process) is retried with backoff.
func (s *Store) Update(ctx context.Context, fn func(tx store.Tx) error) error {
	var miss []string
	err := s.withTx(ctx, func(sqltx *sql.Tx) error {
		q := q{s: s, tx: sqltx, miss: &miss}
		return fn(&tx{q, dialect.Writes(conn{q})})
	})
	for _, query := range miss {
		_, _ = s.ws.get(ctx, s.w, query) // best effort: a failure only means preparing again
	}
	return err
}

// withTx runs fn in a write transaction on the writer connection, retrying busy failures.
func (s *Store) withTx(ctx context.Context, fn func(*sql.Tx) error) error {
	for attempt := 1; ; attempt++ {
		err := s.tryTx(ctx, fn)
		if err == nil || !retryable(err) || attempt == maxAttempts || ctx.Err() != nil {
			return err
		}
		backoff(ctx, attempt)
	}
}

func (s *Store) tryTx(ctx context.Context, fn func(*sql.Tx) error) error {
	sqltx, err := s.w.BeginTx(ctx, nil) // BEGIN IMMEDIATE (_txlock)
	if err != nil {
		return err
	}
	if err := fn(sqltx); err != nil {
		_ = sqltx.Rollback()
		return err
	}
	return sqltx.Commit()
}

func backoff(ctx context.Context, attempt int) {
	d := time.Duration(1<<min(attempt, 6))*time.Millisecond + time.Duration(rand.Int64N(int64(time.Millisecond)))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// SQLite result codes (primary codes are the low byte of extended ones).
const (
	codeBusy       = 5
	codeLocked     = 6
	codeConstraint = 19
	codeUnique     = 2067
	codePrimaryKey = 1555
)

func sqliteCode(err error) int {
	var e *msqlite.Error
	if errors.As(err, &e) {
		return e.Code()
	}
	return 0
}

func retryable(err error) bool {
	c := sqliteCode(err) & 0xff
	return c == codeBusy || c == codeLocked
}

func isUnique(err error) bool {
	c := sqliteCode(err)
	return c == codeUnique || c == codePrimaryKey
}

// stmtCache prepares each statement once per pool; database/sql then re-prepares it on each
// connection lazily and reuses it.
type stmtCache struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

func (c *stmtCache) get(ctx context.Context, db *sql.DB, query string) (*sql.Stmt, error) {
	if st := c.lookup(query); st != nil {
		return st, nil
	}
	// Prepare without holding the lock: on the writer pool it waits for the connection, which
	// a transaction that itself looks up statements may hold.
	st, err := db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, ok := c.m[query]; ok {
		st.Close()
		return prev, nil
	}
	if c.m == nil {
		c.m = map[string]*sql.Stmt{}
	}
	c.m[query] = st
	return st, nil
}

func (c *stmtCache) lookup(query string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[query]
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = nil
}

// reset forgets prepared statements (after Load changes the schema).
func (c *stmtCache) reset() { c.close() }
