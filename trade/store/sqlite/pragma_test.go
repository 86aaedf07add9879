package sqlite

import (
	"context"
	"path/filepath"
	"testing"
)

// TestPragmas pins the connection settings the store's speed depends on, on every connection
// (the writer and a reader): WAL, NORMAL sync, and no memory-mapped I/O (see pragmas for why);
// and options in the path are applied after tradebench's own, so a user can override them.
func TestPragmas(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := Open(ctx, filepath.Join(dir, "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, c := range []struct {
		name, pool, pragma string
		want               int64
	}{
		{"writer", "w", "mmap_size", 0},
		{"reader", "r", "mmap_size", 0},
		{"reader", "r", "synchronous", 1}, // NORMAL
		{"reader", "r", "busy_timeout", 10000},
	} {
		db := st.r
		if c.pool == "w" {
			db = st.w
		}
		var got int64
		if err := db.QueryRowContext(ctx, "PRAGMA "+c.pragma).Scan(&got); err != nil {
			t.Fatalf("%s: PRAGMA %s: %v", c.name, c.pragma, err)
		}
		if got != c.want {
			t.Errorf("%s connection: PRAGMA %s = %d, want %d", c.name, c.pragma, got, c.want)
		}
	}
	var mode string
	if err := st.r.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}

	over, err := Open(ctx, filepath.Join(dir, "o.db")+"?_pragma=mmap_size(65536)")
	if err != nil {
		t.Fatal(err)
	}
	defer over.Close()
	var got int64
	if err := over.r.QueryRowContext(ctx, "PRAGMA mmap_size").Scan(&got); err != nil || got != 65536 {
		t.Errorf("with ?_pragma=mmap_size(65536): PRAGMA mmap_size = %d, %v; want 65536 (the path's options come last)", got, err)
	}
}
