// Package postgres is the PostgreSQL store, through pgx's connection pool. Statements are
// prepared once per connection (pgx's statement cache); transactions run at READ COMMITTED and
// lock the rows they change with SELECT … FOR UPDATE in the order the store package documents,
// and serialization failures and deadlocks are retried. Import it for its side effect:
//
//	import _ "github.com/tradebench/tradebench/trade/store/postgres"
//
// The pool size defaults to 16 connections; set pool_max_conns in the DSN to change it.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tradebench/tradebench/internal/dsn"
	"github.com/tradebench/tradebench/trade/store"
)

func init() { store.Register("postgres", driver{}) }

type driver struct{}

func (driver) Open(ctx context.Context, dsn string) (store.Store, error) { return Open(ctx, dsn) }

// Store is an open PostgreSQL database.
type Store struct {
	pool *pgxpool.Pool
	q    // reads straight on the pool
}

// DefaultPoolSize is the pool size when the DSN sets no pool_max_conns.
const DefaultPoolSize = 16

// Open connects to url (postgres://…) and creates the schema if it is missing.
func Open(ctx context.Context, url string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = DefaultPoolSize
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	s := &Store{pool: pool, q: q{db: pool}}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres %s: %w", dsn.Redact(url), err)
	}
	return s, nil
}

// Kind implements store.Store.
func (s *Store) Kind() string { return "postgres" }

// ServerVersion implements store.Versioner: the server's version() string.
func (s *Store) ServerVersion(ctx context.Context) (string, error) {
	var v string
	err := s.pool.QueryRow(ctx, "SELECT version()").Scan(&v)
	return v, err
}

// Close implements store.Store.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

const maxAttempts = 8

// Update implements store.Store.
func (s *Store) Update(ctx context.Context, fn func(store.Tx) error) error {
	for attempt := 1; ; attempt++ {
		err := pgx.BeginFunc(ctx, s.pool, func(t pgx.Tx) error { return fn(&tx{q{db: t}, dialect.Writes(conn{t})}) })
		if err == nil || !retryable(err) || attempt == maxAttempts || ctx.Err() != nil {
			return err
		}
		backoff(ctx, attempt)
	}
}

func backoff(ctx context.Context, attempt int) {
	d := time.Duration(1<<min(attempt, 6))*time.Millisecond + time.Duration(rand.Int64N(int64(2*time.Millisecond)))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

func pgCode(err error) string {
	var e *pgconn.PgError
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// retryable: serialization_failure, deadlock_detected.
func retryable(err error) bool {
	c := pgCode(err)
	return c == "40001" || c == "40P01"
}
