package main

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/store"
)

func TestAuditExitCodes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "a.db")
	dsn := "sqlite:" + path
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if code := runMain([]string{"audit", "--db", dsn}); code != 1 {
		t.Errorf("audit of a database never loaded: exit %d, want 1", code)
	}
	spec := dataset.DefaultSpec()
	spec.Accounts, spec.Quotes = 20, 10
	if err := st.Load(ctx, spec, nil); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if code := runMain([]string{"audit", "--db", dsn}); code != 0 {
		t.Fatalf("audit of a freshly loaded database: exit %d, want 0", code)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("UPDATE accounts SET balance = balance + 1 WHERE accountid = 2"); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"audit", "--db", dsn}, {"audit", "--db", dsn, "--json", "--allow-open"}} {
		if code := runMain(args); code != 4 {
			t.Errorf("%v on a corrupted balance: exit %d, want 4", args, code)
		}
	}
	for _, bad := range [][]string{
		{"audit", "--db", "mysql://x"},
		{"audit", "--db", dsn, "--limit", "0"},
		{"audit", "--db", dsn, "extra"},
		{"audit", "--bogus"},
	} {
		if code := runMain(bad); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}
