// Package storetest runs one test body against every store: a fresh SQLite database file and
// a fresh database on a real PostgreSQL (see internal/testing/pgtest, which skips without PostgreSQL
// unless CI is set). Test packages using it should call pgtest.Main from TestMain.
package storetest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tradebench/tradebench/internal/dsn"
	"github.com/tradebench/tradebench/internal/testing/pgtest"
	"github.com/tradebench/tradebench/trade/store"
	_ "github.com/tradebench/tradebench/trade/store/all" // every driver
)

// Each runs f as the subtests "sqlite" and "postgres", each with the DSN of a fresh empty
// database.
func Each(t *testing.T, f func(t *testing.T, dsn string)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { f(t, SQLiteDSN(t)) })
	t.Run("postgres", func(t *testing.T) { f(t, pgtest.DSN(t)) })
}

// SQLiteDSN is a fresh SQLite database in the test's temporary directory.
func SQLiteDSN(t testing.TB) string {
	return "sqlite:" + filepath.Join(t.TempDir(), "trade.db")
}

// Open opens the DSN db and closes it when the test ends.
func Open(t testing.TB, db string) store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatalf("open %s: %v", dsn.Redact(db), err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Loaded opens the DSN db and loads spec into it.
func Loaded(t testing.TB, db string, spec store.LoadSpec) store.Store {
	t.Helper()
	st := Open(t, db)
	if err := st.Load(context.Background(), spec, nil); err != nil {
		t.Fatalf("load %v into %s: %v", spec, dsn.Redact(db), err)
	}
	return st
}
