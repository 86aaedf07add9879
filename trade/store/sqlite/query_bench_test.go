package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
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
	path := filepath.Join(b.TempDir(), "q.db")
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	spec := dataset.DefaultSpec()
	spec.Accounts, spec.Quotes = 2000, 100
	if err := st.Load(ctx, spec, nil); err != nil {
		b.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	const cols = "orderid, accountid, holdingid, symbol, ordertype, status, opendate, completiondate, quantity, price, fee"
	for _, c := range []struct{ name, limit string }{{"limit-param", " LIMIT ?"}, {"limit-expr", " LIMIT ?+0"}} {
		b.Run(c.name, func(b *testing.B) {
			stmt, err := db.Prepare("SELECT " + cols + " FROM orders WHERE accountid = ? ORDER BY opendate DESC, orderid DESC" + c.limit)
			if err != nil {
				b.Fatal(err)
			}
			defer stmt.Close()
			for i := 0; b.Loop(); i++ {
				rows, err := stmt.Query(i%2000+1, 100)
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for rows.Next() {
					n++
				}
				rows.Close()
				if n != 5 {
					b.Fatalf("%d orders, want 5", n)
				}
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
