package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/store/sqlite"
)

// BenchmarkOrdersQuery is why the stores write LIMIT as an expression: the account page's
// orders query as a prepared statement on one connection, with "LIMIT ?" (SQLite re-parses
// the statement on every execution: binding a LIMIT parameter it planned with expires it) and
// "LIMIT ?+0" (compiled once), and through the store.
//
//	go test -run '^$' -bench OrdersQuery ./trade/store/sqlite/
func BenchmarkOrdersQuery(b *testing.B) {
	ctx := context.Background()
	st, db := benchStore(b, 2000, 100)
	const cols = "orderid, accountid, holdingid, symbol, ordertype, status, opendate, completiondate, quantity, price, fee"
	for _, c := range []struct{ name, limit string }{{"limit-param", " LIMIT ?"}, {"limit-expr", " LIMIT ?+0"}} {
		b.Run(c.name, func(b *testing.B) {
			stmt, err := db.Prepare("SELECT " + cols + " FROM orders WHERE accountid = ? ORDER BY opendate DESC, orderid DESC" + c.limit)
			if err != nil {
				b.Fatal(err)
			}
			defer stmt.Close()
			for i := 0; b.Loop(); i++ {
				wantRows(b, stmt, 5, i%2000+1, 100)
			}
		})
	}
	b.Run("store", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			os, err := st.Orders(ctx, int64(i%2000+1), 100)
			if err != nil || len(os) != 5 {
				b.Fatalf("%d orders, %v", len(os), err)
			}
		}
	})
}

// wantRows runs stmt and reads its rows, failing unless there are want of them.
func wantRows(b *testing.B, stmt *sql.Stmt, want int, args ...any) {
	rows, err := stmt.Query(args...)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	if n != want || rows.Err() != nil {
		b.Fatalf("%d rows, %v; want %d", n, rows.Err(), want)
	}
}

// benchStore loads a data set into a fresh database and returns the store and a second,
// single-connection handle on the same file for statements prepared by hand.
func benchStore(b *testing.B, accounts, quotes int) (*sqlite.Store, *sql.DB) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "q.db")
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	spec := dataset.DefaultSpec()
	spec.Accounts, spec.Quotes = accounts, quotes
	if err := st.Load(ctx, spec, nil); err != nil {
		b.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	return st, db
}

// BenchmarkQuotesQuery is why the store looks quotes up with UNION ALL rather than IN: the
// quotes page's five symbols, prepared on one connection, both ways.
//
//	go test -run '^$' -bench QuotesQuery ./trade/store/sqlite/
func BenchmarkQuotesQuery(b *testing.B) {
	_, db := benchStore(b, 100, 10000)
	const cols = "symbol, companyname, price, open, low, high, change, volume"
	one := "SELECT " + cols + " FROM quotes WHERE symbol = ?"
	for _, c := range []struct{ name, q string }{
		{"in", "SELECT " + cols + " FROM quotes WHERE symbol IN (?,?,?,?,?)"},
		{"union-all", strings.Repeat(one+" UNION ALL ", 4) + one},
	} {
		b.Run(c.name, func(b *testing.B) {
			stmt, err := db.Prepare(c.q)
			if err != nil {
				b.Fatal(err)
			}
			defer stmt.Close()
			for b.Loop() {
				wantRows(b, stmt, 5, "s:1", "s:2", "s:3", "s:4", "s:5")
			}
		})
	}
}
