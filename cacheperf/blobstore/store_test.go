package blobstore

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/internal/testing/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestSQLiteStore(t *testing.T) {
	testStore(t, "sqlite:"+filepath.Join(t.TempDir(), "items.db"))
}

func TestPostgresStore(t *testing.T) {
	testStore(t, pgtest.DSN(t))
}

func testStore(t *testing.T, dsn string) {
	ctx := context.Background()
	st, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var progress [][2]int64
	const n, size = 300, 10 << 10 // several batches of COPY/INSERT are not needed for correctness; progress is
	if err := st.Load(ctx, LoadConfig{Items: n, Size: size, Seed: 7, Progress: func(done, total int64) { progress = append(progress, [2]int64{done, total}) }}); err != nil {
		t.Fatal(err)
	}
	if len(progress) == 0 || progress[len(progress)-1] != [2]int64{n, n} {
		t.Errorf("progress ends %v, want the last call %d of %d", progress, n, n)
	}
	cnt, maxID, err := st.Count(ctx)
	if err != nil || cnt != n || maxID != n {
		t.Fatalf("Count = %d, %d, %v; want %d, %d", cnt, maxID, err, n, n)
	}
	seen := map[string]int64{}
	for _, id := range []int64{1, 2, 150, n} {
		it, err := st.Get(ctx, id)
		if err != nil {
			t.Fatalf("Get(%d): %v", id, err)
		}
		want := make([]byte, size)
		FillBlob(want, 7, id)
		if it.ID != id || it.Name != ItemName(id) || it.ContentType != ContentType || it.Size != size || !bytes.Equal(it.Data, want) {
			t.Fatalf("Get(%d) = id %d name %q type %q size %d, blob equal %v", id, it.ID, it.Name, it.ContentType, it.Size, bytes.Equal(it.Data, want))
		}
		if prev, dup := seen[string(it.Data)]; dup {
			t.Fatalf("items %d and %d have the same blob", prev, id)
		}
		seen[string(it.Data)] = id
		m, err := st.Meta(ctx, id)
		if err != nil || m != it.Meta {
			t.Fatalf("Meta(%d) = %+v, %v; want %+v", id, m, err, it.Meta)
		}
		part, err := st.ReadAt(ctx, id, 1000, 24)
		if err != nil || !bytes.Equal(part, want[1000:1024]) {
			t.Fatalf("ReadAt(%d, 1000, 24) = %x, %v; want %x", id, part, err, want[1000:1024])
		}
		tail, err := st.ReadAt(ctx, id, size-4, 100)
		if err != nil || !bytes.Equal(tail, want[size-4:]) {
			t.Fatalf("ReadAt past the end = %x, %v; want %x", tail, err, want[size-4:])
		}
	}
	for _, id := range []int64{0, -1, n + 1} {
		if _, err := st.Get(ctx, id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(%d) error = %v, want ErrNotFound", id, err)
		}
		if _, err := st.Meta(ctx, id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Meta(%d) error = %v, want ErrNotFound", id, err)
		}
		if _, err := st.ReadAt(ctx, id, 0, 1); !errors.Is(err, ErrNotFound) {
			t.Errorf("ReadAt(%d) error = %v, want ErrNotFound", id, err)
		}
	}
	// Put replaces an item, size included.
	big := &Item{Meta: Meta{ID: 2, Name: "<b>&", ContentType: "application/octet-stream"}, Data: bytes.Repeat([]byte{9}, 3000)}
	if err := st.Put(ctx, big); err != nil {
		t.Fatal(err)
	}
	got, err := st.Get(ctx, 2)
	if err != nil || got.Name != big.Name || got.Size != 3000 || !bytes.Equal(got.Data, big.Data) {
		t.Fatalf("after Put: %+v, %v", got.Meta, err)
	}
	// Load again replaces everything.
	if err := st.Load(ctx, LoadConfig{Items: 5, Size: 64, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	if cnt, maxID, err := st.Count(ctx); err != nil || cnt != 5 || maxID != 5 {
		t.Fatalf("after reload Count = %d, %d, %v", cnt, maxID, err)
	}
}

func TestLoadConfigValidation(t *testing.T) {
	st, err := Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, c := range []LoadConfig{{Items: 0, Size: 100}, {Items: 1, Size: 8}, {Items: 1, Size: 2 << 30}} {
		if err := st.Load(context.Background(), c); err == nil {
			t.Errorf("Load(%+v) succeeded", c)
		}
	}
}

// Bad DSNs are refused, and the error never shows a password (package dsn reads every
// tradebench DSN; a bare *.db path is SQLite here as in StockTrader's store).
func TestOpenRejectsBadDSN(t *testing.T) {
	for _, dsn := range []string{"", "sqlite:", "mysql://x", "/tmp/x.txt", "mysql://bench:hunter2@db/x"} {
		st, err := Open(context.Background(), dsn)
		if err == nil {
			st.Close()
			t.Errorf("Open(%q) succeeded", dsn)
		} else if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("Open(%q): %v shows the password", dsn, err)
		}
	}
}

func TestCountOnEmptyDatabaseExplains(t *testing.T) {
	st, err := Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "empty.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, _, err := st.Count(context.Background()); err == nil || !strings.Contains(err.Error(), "cacheperf load") {
		t.Fatalf("Count on an unloaded database: %v", err)
	}
}
