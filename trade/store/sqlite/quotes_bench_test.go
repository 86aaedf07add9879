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

// BenchmarkQuotesQuery is why the store looks quotes up with UNION ALL rather than IN: the
// quotes page's five symbols, prepared on one connection, both ways.
//
//	go test -run '^$' -bench QuotesQuery ./trade/store/sqlite/
func BenchmarkQuotesQuery(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "q.db")
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	spec := dataset.DefaultSpec()
	spec.Accounts, spec.Quotes = 100, 10000
	if err := st.Load(ctx, spec, nil); err != nil {
		b.Fatal(err)
	}
	db, _ := sql.Open("sqlite", path)
	defer db.Close()
	db.SetMaxOpenConns(1)
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
				rows, err := stmt.Query("s:1", "s:2", "s:3", "s:4", "s:5")
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for rows.Next() {
					n++
				}
				rows.Close()
				if n != 5 {
					b.Fatal(n)
				}
			}
		})
	}
}
