package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/store"
	"github.com/tradebench/tradebench/trade/store/sqlite"
)

// A database made before the holdings key was AUTOINCREMENT is rebuilt when opened, and new
// holdings are numbered after every holding id an order names, even one whose holding is gone.
func TestHoldingsMigrateToAutoincrement(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	spec := dataset.DefaultSpec()
	spec.Accounts, spec.Quotes = 10, 5
	if err := st.Load(ctx, spec, nil); err != nil {
		t.Fatal(err)
	}
	st.Close()

	// Make it old: the plain rowid key, and a sold-out holding 70 named by an order only.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"ALTER TABLE holdings RENAME TO h_new",
		`CREATE TABLE holdings (holdingid INTEGER PRIMARY KEY, accountid INTEGER NOT NULL, symbol TEXT NOT NULL,
			quantity INTEGER NOT NULL, purchaseprice INTEGER NOT NULL, purchasedate INTEGER NOT NULL)`,
		"INSERT INTO holdings SELECT * FROM h_new",
		"DROP TABLE h_new",
		"DELETE FROM sqlite_sequence WHERE name = 'holdings'",
		"INSERT INTO orders SELECT 100, accountid, 70, symbol, 'sell', 'closed', opendate, completiondate, 1, price, fee FROM orders WHERE orderid = 1",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	st, err = sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var id int64
	err = st.Update(ctx, func(tx store.Tx) error {
		id, err = tx.CreateHolding(ctx, trade.Holding{AccountID: 1, Symbol: "s:1", Quantity: 1, PurchasePrice: 100, PurchaseDate: time.Now()})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if id != 71 {
		t.Errorf("the first holding after the migration is %d, want 71 (after the id order 100 names)", id)
	}
	hs, err := st.Holdings(ctx, 1)
	if err != nil || len(hs) != spec.Holdings+1 {
		t.Fatalf("account 1 after the migration: %d holdings, %v; want the %d loaded and the new one", len(hs), err, spec.Holdings)
	}
	db, _ = sql.Open("sqlite", path)
	defer db.Close()
	var ddl string
	if err := db.QueryRow("SELECT sql FROM sqlite_master WHERE name = 'holdings'").Scan(&ddl); err != nil || !strings.Contains(ddl, "AUTOINCREMENT") {
		t.Errorf("holdings table after the migration: %q %v", ddl, err)
	}
}
