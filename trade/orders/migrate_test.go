package orders_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tradebench/tradebench/trade/store"
	"github.com/tradebench/tradebench/trade/store/storetest"
)

// The relay's open-orders index is added when a database made before it is opened, on both
// stores, and OpenOrders finds the open orders through it.
func TestOpenOrdersIndexMigrates(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		st := loaded(t, dsn)
		st.Close()
		var drop func(string) bool // drops the index if present, reports whether it was
		if strings.HasPrefix(dsn, "sqlite:") {
			db, err := sql.Open("sqlite", strings.TrimPrefix(dsn, "sqlite:"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			drop = func(q string) bool {
				var n int
				if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'orders_open'").Scan(&n); err != nil {
					t.Fatal(err)
				}
				if _, err := db.ExecContext(ctx, q); err != nil {
					t.Fatal(err)
				}
				return n == 1
			}
		} else {
			c, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(ctx)
			drop = func(q string) bool {
				var n int
				if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_indexes WHERE indexname = 'orders_open'").Scan(&n); err != nil {
					t.Fatal(err)
				}
				if _, err := c.Exec(ctx, q); err != nil {
					t.Fatal(err)
				}
				return n == 1
			}
		}
		if !drop("DROP INDEX IF EXISTS orders_open") {
			t.Fatal("a new database has no orders_open index")
		}
		st2, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer st2.Close()
		if !drop("SELECT 1") {
			t.Fatal("opening a database without the orders_open index did not add it")
		}
	})
}
