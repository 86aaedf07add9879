package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/tradebench/tradebench/trade/store"
	"github.com/tradebench/tradebench/trade/store/sqlstore"
)

// Tables. Money is integer cents, times integer microseconds (UTC), quantities whole shares.
// Profiles live in the accounts row: every profile read is by user id, like the account's.
// The *_base tables are the pristine copy Reset restores from.
func tableDDL(name string) string {
	switch strings.TrimSuffix(name, "_base") {
	case "accounts":
		return `CREATE TABLE IF NOT EXISTS ` + name + ` (accountid INTEGER PRIMARY KEY, userid TEXT NOT NULL,
			passwd TEXT NOT NULL, fullname TEXT NOT NULL, address TEXT NOT NULL, email TEXT NOT NULL,
			creditcard TEXT NOT NULL, balance INTEGER NOT NULL, openbalance INTEGER NOT NULL,
			creationdate INTEGER NOT NULL, lastlogin INTEGER, logincount INTEGER NOT NULL, logoutcount INTEGER NOT NULL)`
	case "holdings":
		// AUTOINCREMENT: a plain rowid key reuses the largest id once that holding is sold in
		// full, and the orders naming the old holding would then name the new one.
		return `CREATE TABLE IF NOT EXISTS ` + name + ` (holdingid INTEGER PRIMARY KEY AUTOINCREMENT, accountid INTEGER NOT NULL,
			symbol TEXT NOT NULL, quantity INTEGER NOT NULL, purchaseprice INTEGER NOT NULL, purchasedate INTEGER NOT NULL)`
	case "orders":
		return `CREATE TABLE IF NOT EXISTS ` + name + ` (orderid INTEGER PRIMARY KEY, accountid INTEGER NOT NULL,
			holdingid INTEGER, symbol TEXT NOT NULL, ordertype TEXT NOT NULL, status TEXT NOT NULL,
			opendate INTEGER NOT NULL, completiondate INTEGER, quantity INTEGER NOT NULL, price INTEGER NOT NULL,
			fee INTEGER NOT NULL)`
	case "quotes":
		return `CREATE TABLE IF NOT EXISTS ` + name + ` (symbol TEXT PRIMARY KEY, companyname TEXT NOT NULL,
			price INTEGER NOT NULL, open INTEGER NOT NULL, low INTEGER NOT NULL, high INTEGER NOT NULL,
			change INTEGER NOT NULL, volume INTEGER NOT NULL) WITHOUT ROWID`
	case "meta":
		return `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`
	case "requestkeys":
		return sqlstore.RequestKeysDDL
	}
	panic("sqlite: no table " + name)
}

var tables = []string{"accounts", "holdings", "orders", "quotes", "meta", "requestkeys"}

// indexes serve every lookup the service makes: login and every page find the account by user
// id; the portfolio lists holdings by account; the account page lists recent orders by account
// and date; closed-order alerts find an account's closed orders (a partial index: only a few
// orders are closed at any time). Quotes are found by symbol (primary key), and the market
// index range s:1__ is a primary-key range scan.
var indexes = []string{
	`CREATE UNIQUE INDEX IF NOT EXISTS accounts_userid ON accounts (userid)`,
	`CREATE INDEX IF NOT EXISTS holdings_account ON holdings (accountid)`,
	`CREATE INDEX IF NOT EXISTS orders_account_date ON orders (accountid, opendate DESC, orderid DESC)`,
	`CREATE INDEX IF NOT EXISTS orders_closed ON orders (accountid) WHERE status = 'closed'`,
	// the durable order queue's relay finds open orders (few at any time) by id
	`CREATE INDEX IF NOT EXISTS orders_open ON orders (orderid) WHERE status = 'open'`,
}

func (s *Store) migrate(ctx context.Context) error {
	return s.withTx(ctx, func(conn *sql.Tx) error {
		for _, t := range tables {
			if _, err := conn.ExecContext(ctx, tableDDL(t)); err != nil {
				return err
			}
		}
		if err := autoincrementHoldings(ctx, conn); err != nil {
			return fmt.Errorf("migrating holdings to never reuse ids: %w", err)
		}
		for _, ix := range indexes {
			if _, err := conn.ExecContext(ctx, ix); err != nil {
				return err
			}
		}
		return nil
	})
}

// autoincrementHoldings rebuilds a holdings table made before its key was AUTOINCREMENT, and
// starts the id sequence after every holding id an order names, so no id is handed out twice.
func autoincrementHoldings(ctx context.Context, conn *sql.Tx) error {
	var ddl string
	if err := conn.QueryRowContext(ctx, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'holdings'").Scan(&ddl); err != nil {
		return err
	}
	if strings.Contains(strings.ToUpper(ddl), "AUTOINCREMENT") {
		return nil
	}
	for _, q := range []string{
		"DROP INDEX IF EXISTS holdings_account",
		"ALTER TABLE holdings RENAME TO holdings_old",
		tableDDL("holdings"),
		"INSERT INTO holdings SELECT * FROM holdings_old",
		"DROP TABLE holdings_old",
		`INSERT INTO sqlite_sequence (name, seq) SELECT 'holdings', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'holdings')`,
		`UPDATE sqlite_sequence SET seq = max(seq, coalesce((SELECT max(holdingid) FROM orders), 0)) WHERE name = 'holdings'`,
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// Loaded implements store.Store.
func (s *Store) Loaded(ctx context.Context) (store.LoadInfo, error) {
	return sqlstore.LoadMarker(s.r.QueryRowContext(ctx, sqlstore.LoadMarkerSQL))
}

// Reset implements store.Store with set-based statements in one transaction: delete rows with
// ids above the loaded maximum, put back the loaded holdings that sell orders touched, then
// every loaded account and quote that differs from its pristine copy. Only changed rows are
// written.
func (s *Store) Reset(ctx context.Context) error {
	return s.withTx(ctx, func(tx *sql.Tx) error {
		li, err := dialect.Reset(ctx, conn{q{s: s, tx: tx}})
		if err != nil {
			return err
		}
		// new holdings are numbered after the loaded ones again, as on PostgreSQL
		_, err = tx.ExecContext(ctx, "UPDATE sqlite_sequence SET seq = ? WHERE name = 'holdings'", li.MaxHoldingID)
		return err
	})
}
