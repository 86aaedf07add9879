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

// batcher inserts rows with one prepared multi-row INSERT per batch: far fewer statement
// executions than row-at-a-time.
type batcher struct {
	tx    *sql.Tx
	table string
	cols  int
	rows  int
	full  *sql.Stmt
	args  []any
	n     int
}

func newBatcher(ctx context.Context, tx *sql.Tx, table string, cols, rows int) (*batcher, error) {
	b := &batcher{tx: tx, table: table, cols: cols, rows: rows, args: make([]any, 0, cols*rows)}
	st, err := tx.PrepareContext(ctx, b.sql(rows))
	if err != nil {
		return nil, err
	}
	b.full = st
	return b, nil
}

func (b *batcher) sql(rows int) string {
	row := "(" + strings.Repeat(",?", b.cols)[1:] + ")"
	return "INSERT INTO " + b.table + " VALUES " + strings.Repeat(","+row, rows)[1:]
}

func (b *batcher) add(ctx context.Context, vals ...any) error {
	b.args = append(b.args, vals...)
	b.n++
	if b.n < b.rows {
		return nil
	}
	_, err := b.full.ExecContext(ctx, b.args...)
	b.args, b.n = b.args[:0], 0
	return err
}

func (b *batcher) flush(ctx context.Context) error {
	defer b.full.Close()
	if b.n == 0 {
		return nil
	}
	_, err := b.tx.ExecContext(ctx, b.sql(b.n), b.args...)
	b.args, b.n = b.args[:0], 0
	return err
}

// Load implements store.Store: one transaction on the writer connection with synchronous=OFF,
// tables filled by multi-row inserts before their secondary indexes are built.
func (s *Store) Load(ctx context.Context, spec store.LoadSpec, progress func(done, total int64)) error {
	l, err := sqlstore.NewLoad(spec, progress)
	if err != nil {
		return err
	}
	gen, post, total := l.Gen, l.Post, l.Total
	progress = l.Progress
	const postSteps = 8

	conn, err := s.w.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	s.ws.reset()
	s.rs.reset()
	for _, p := range []string{"PRAGMA synchronous = OFF", "PRAGMA cache_size = -262144"} {
		if _, err := conn.ExecContext(ctx, p); err != nil {
			return err
		}
	}
	defer func() {
		bg := context.WithoutCancel(ctx)
		_, _ = conn.ExecContext(bg, "PRAGMA synchronous = NORMAL")
		_, _ = conn.ExecContext(bg, "PRAGMA cache_size = -32000")
	}()

	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, t := range tables {
		for _, name := range []string{t, t + "_base"} {
			if _, err := tx.ExecContext(ctx, "DROP TABLE IF EXISTS "+name); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, tableDDL(t)); err != nil {
			return err
		}
	}

	var done, shares int64
	qb, err := newBatcher(ctx, tx, "quotes", len(sqlstore.QuoteRowCols), 500)
	if err != nil {
		return err
	}
	for i := 0; i < spec.Quotes; i++ {
		x := gen.Quote(i)
		if err := qb.add(ctx, sqlstore.QuoteRow(x)...); err != nil {
			return err
		}
		if done++; done%8192 == 0 {
			progress(done, total)
		}
	}
	if err := qb.flush(ctx); err != nil {
		return err
	}

	ab, err := newBatcher(ctx, tx, "accounts", len(sqlstore.AccountRowCols), 200)
	if err != nil {
		return err
	}
	hb, err := newBatcher(ctx, tx, "holdings", len(sqlstore.HoldingRowCols), 500)
	if err != nil {
		return err
	}
	ob, err := newBatcher(ctx, tx, "orders", len(sqlstore.OrderRowCols), 300)
	if err != nil {
		return err
	}
	for i := 0; i < spec.Accounts; i++ {
		b := gen.Account(i)
		if err := ab.add(ctx, sqlstore.AccountRow(&b, tm)...); err != nil {
			return err
		}
		for i := range b.Holdings {
			shares += b.Holdings[i].Quantity
			if err := hb.add(ctx, sqlstore.HoldingRow(&b.Holdings[i], tm)...); err != nil {
				return err
			}
		}
		for i := range b.Orders {
			if err := ob.add(ctx, sqlstore.OrderRow(&b.Orders[i], tm)...); err != nil {
				return err
			}
		}
		if done += int64(1 + 2*len(b.Holdings)); i%1024 == 0 {
			progress(done, total)
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	for _, b := range []*batcher{ab, hb, ob} {
		if err := b.flush(ctx); err != nil {
			return err
		}
	}
	progress(done, total)
	step := func() { done += post / postSteps; progress(done, total) }

	// The pristine copies Reset restores from (orders need none: loaded orders are final and
	// no operation changes a final order).
	for _, t := range []string{"accounts", "holdings", "quotes"} {
		if _, err := tx.ExecContext(ctx, tableDDL(t+"_base")); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO "+t+"_base SELECT * FROM "+t); err != nil {
			return err
		}
		step()
	}
	for _, ix := range indexes {
		if _, err := tx.ExecContext(ctx, ix); err != nil {
			return err
		}
		step()
	}
	_, marker := l.Marker(shares)
	if _, err := tx.ExecContext(ctx, "INSERT INTO meta (key, value) VALUES ('load', ?)", marker); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	// Statistics for the planner (sampled: cheap on big tables), and the WAL folded back into
	// the database file so the first benchmark run does not pay for it.
	for _, p := range []string{"PRAGMA analysis_limit = 1000", "ANALYZE", "PRAGMA wal_checkpoint(TRUNCATE)"} {
		if _, err := conn.ExecContext(ctx, p); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	progress(total, total)
	return nil
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
