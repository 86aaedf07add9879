package sqlite

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"time"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/store"
	"github.com/tradebench/tradebench/trade/store/sqlstore"
)

// q runs the primitives on the reader pool (tx == nil) or inside a transaction.
type q struct {
	s  *Store
	tx *sql.Tx
	// miss collects the statements an Update transaction had to prepare itself, to cache
	// after it; nil in a one-off transaction, which caches nothing.
	miss *[]string
}

func (q q) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if q.tx == nil {
		return q.s.rs.get(ctx, q.s.r, query)
	}
	if q.miss == nil { // a one-off transaction (Reset, Audit): statements not cached
		return q.tx.PrepareContext(ctx, query)
	}
	if st := q.s.ws.lookup(query); st != nil {
		return q.tx.StmtContext(ctx, st), nil
	}
	// The writer pool's one connection is this transaction's, so the statement cannot be
	// prepared on the pool now: prepare it in the transaction and cache it afterwards.
	*q.miss = append(*q.miss, query)
	return q.tx.PrepareContext(ctx, query)
}

func (q q) queryRow(ctx context.Context, query string, args ...any) (*sql.Row, error) {
	st, err := q.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryRowContext(q.readCtx(ctx), args...), nil
}

func (q q) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := q.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(q.readCtx(ctx), args...)
}

// readCtx is the context a read on the reader pool runs under: without the caller's
// cancellation. A cancellable context costs two goroutines per statement (database/sql's
// watcher that closes the rows, the driver's that interrupts SQLite), a tenth of a page's CPU,
// and buys nothing here: a reader is never blocked in WAL mode, and every read is an indexed
// lookup or a LIMITed range (TestQueryPlansUseIndexes), done in microseconds, so the wait for
// a reader connection is as short. Writes keep ctx: a write transaction waits for the writer.
func (q q) readCtx(ctx context.Context) context.Context {
	if q.tx != nil {
		return ctx
	}
	return context.WithoutCancel(ctx)
}

// Times are stored as integer microseconds since the Unix epoch, UTC; NULL for none.
func tm(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMicro()
}

// micros is where a timestamp column scans: integer microseconds since the Unix epoch, NULL
// for none.
type micros struct{ sql.NullInt64 }

// UTC implements sqlstore.TimeCol.
func (m micros) UTC() time.Time {
	if !m.Valid {
		return time.Time{}
	}
	return time.UnixMicro(m.Int64).UTC()
}

// scan holds the shared row scanners, made for integer-microsecond timestamps.
var scan sqlstore.Scan[micros, *micros]

// one scans the row query selects; preparing the statement may fail before there is a row.
func one[T any](q q, ctx context.Context, scan func(sqlstore.Scanner) (T, error), query string, args ...any) (T, error) {
	row, err := q.queryRow(ctx, query, args...)
	if err != nil {
		var zero T
		return zero, err
	}
	return scan(row)
}

func all[T any](q q, ctx context.Context, scan func(sqlstore.Scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlstore.Collect(rows, scan)
}

// reads is the read statements, written once in sqlstore.
var reads = dialect.Reads()

func (q q) Account(ctx context.Context, userID string) (trade.Account, error) {
	return one(q, ctx, scan.Account, reads.Account, userID)
}

func (q q) Profile(ctx context.Context, userID string) (trade.AccountProfile, error) {
	return one(q, ctx, scan.Profile, reads.Profile, userID)
}

func (q q) AccountWithProfile(ctx context.Context, userID string) (trade.Account, trade.AccountProfile, error) {
	row, err := q.queryRow(ctx, reads.AccountWithProfile, userID)
	if err != nil {
		return trade.Account{}, trade.AccountProfile{}, err
	}
	return scan.AccountWithProfile(row)
}

func (q q) AccountSummary(ctx context.Context, userID string) (trade.Account, trade.HoldingsSummary, error) {
	row, err := q.queryRow(ctx, reads.AccountSummary, userID)
	if err != nil {
		return trade.Account{}, trade.HoldingsSummary{}, err
	}
	return scan.AccountSummary(row)
}

func (q q) PasswordHash(ctx context.Context, userID string) (string, error) {
	row, err := q.queryRow(ctx, reads.PasswordHash, userID)
	if err != nil {
		return "", err
	}
	var h string
	return h, sqlstore.NotFound(row.Scan(&h))
}

func (q q) Holdings(ctx context.Context, accountID int64) ([]trade.Holding, error) {
	return all(q, ctx, scan.Holding, reads.Holdings, accountID)
}

func (q q) UserHoldings(ctx context.Context, userID string) ([]trade.Holding, error) {
	hs, err := all(q, ctx, scan.Holding, reads.UserHoldings, userID)
	return store.OfUser(ctx, q, userID, hs, err)
}

func (q q) UserHoldingsWithQuotes(ctx context.Context, userID string) ([]trade.Holding, []trade.Quote, error) {
	rows, err := q.query(ctx, reads.UserHoldingsWithQuotes, userID)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	hs, qs, err := scan.CollectHoldingsWithQuotes(rows)
	return store.OfUserWithQuotes(ctx, q, userID, hs, qs, err)
}

func (q q) UserOrders(ctx context.Context, userID string, limit int) ([]trade.Order, error) {
	os, err := all(q, ctx, scan.Order, reads.UserOrders, userID, limit)
	return store.OfUser(ctx, q, userID, os, err)
}

// UserClosedOrders answers the account's marker row (store.MarkedOrders) with the closed orders.
func (q q) UserClosedOrders(ctx context.Context, userID string) ([]trade.Order, error) {
	return store.MarkedOrders(all(q, ctx, scan.Order, reads.UserClosedOrders, userID, userID))
}

func (q q) UserAccountPage(ctx context.Context, userID string, limit int) (trade.AccountPage, error) {
	rows, err := q.query(ctx, reads.UserAccountPage, userID, userID, userID, limit)
	if err != nil {
		return trade.AccountPage{}, err
	}
	defer rows.Close()
	return scan.AccountPage(rows)
}

func (q q) Holding(ctx context.Context, holdingID int64) (trade.Holding, error) {
	return one(q, ctx, scan.Holding, reads.Holding, holdingID)
}

func (q q) Orders(ctx context.Context, accountID int64, limit int) ([]trade.Order, error) {
	return all(q, ctx, scan.Order, reads.Orders, accountID, limit)
}

func (q q) ClosedOrders(ctx context.Context, accountID int64) ([]trade.Order, error) {
	return all(q, ctx, scan.Order, reads.ClosedOrders, accountID)
}

// OrdersAfter implements store.Store.
func (q q) OrdersAfter(ctx context.Context, afterID int64, limit int) ([]trade.Order, error) {
	return all(q, ctx, scan.Order, reads.OrdersAfter, afterID, limit)
}

// OpenOrders implements store.Store.
func (q q) OpenOrders(ctx context.Context, afterID int64, limit int) ([]trade.Order, error) {
	return all(q, ctx, scan.Order, reads.OpenOrders, afterID, limit)
}

func (q q) Order(ctx context.Context, orderID int64) (trade.Order, error) {
	return one(q, ctx, scan.Order, reads.Order, orderID)
}

func (q q) Quote(ctx context.Context, symbol string) (trade.Quote, error) {
	return one(q, ctx, scan.Quote, reads.Quote, symbol)
}

// Quotes looks each symbol up by the primary key, joined with UNION ALL: SQLite answers an IN
// list through an ephemeral table it builds and drops on every execution, which cost the quotes
// page a third more per query (BenchmarkQuotesQuery). Lists beyond trade.MaxSymbols (more than
// the service allows; SQLite caps compound SELECTs at 500 terms) use IN. One statement per list
// length: at most trade.MaxSymbols of them get cached.
func (q q) Quotes(ctx context.Context, symbols []string) ([]trade.Quote, error) {
	symbols = slices.Compact(slices.Sorted(slices.Values(symbols)))
	if len(symbols) == 0 {
		return nil, nil
	}
	args := make([]any, len(symbols))
	for i, s := range symbols {
		args[i] = s
	}
	if len(symbols) > trade.MaxSymbols {
		marks := strings.Repeat(",?", len(symbols))[1:]
		return all(q, ctx, scan.Quote, "SELECT "+sqlstore.QuoteCols+" FROM quotes WHERE symbol IN ("+marks+")", args...)
	}
	one := "SELECT " + sqlstore.QuoteCols + " FROM quotes WHERE symbol = ?"
	return all(q, ctx, scan.Quote, strings.Repeat(one+" UNION ALL ", len(symbols)-1)+one, args...)
}

func (q q) IndexQuotes(ctx context.Context) ([]trade.Quote, error) {
	return all(q, ctx, scan.Quote, reads.IndexQuotes)
}

// tx is a write transaction. SQLite's IMMEDIATE transaction already excludes every other
// writer, so the Lock* reads need no row locks; the writes are the shared ones.
type tx struct {
	q
	sqlstore.Writes
}

// limitParam is a LIMIT bound at run time. A bare "LIMIT ?" costs a full re-parse on every
// execution: SQLite peeks at a bound LIMIT value while planning, which marks the statement
// expired each time the parameter is bound again (sqlite3ExprIsInteger, varmask), so the
// prepared statement is recompiled by every step. An expression is evaluated at run time
// instead and the statement stays compiled (BenchmarkOrdersQuery).
const limitParam = "?+0"

// dialect is SQLite's for the statements sqlstore writes once. The Lock* reads take no row
// locks (ForUpdate empty): they are the plain reads' statements, cached once.
var dialect = sqlstore.NewDialect(sqlstore.Dialect{
	Distinct: "IS NOT",
	Time:     tm,
	IsUnique: isUnique,
	Order:    scan.Order,
	Limit:    limitParam,
})

// conn adapts q to sqlstore.Conn.
type conn struct{ q }

func (c conn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return 0, err
	}
	res, err := st.ExecContext(ctx, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (c conn) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Scanner {
	row, err := c.queryRow(ctx, query, args...)
	if err != nil {
		return sqlstore.Failed(err)
	}
	return row
}

func (c conn) Each(ctx context.Context, query string, row func(sqlstore.Scanner) error, args ...any) error {
	rows, err := c.query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return sqlstore.Each(rows, row)
}

func (t *tx) LockAccount(ctx context.Context, userID string) (trade.Account, error) {
	return one(t.q, ctx, scan.Account, reads.LockAccount, userID)
}

func (t *tx) LockAccountByID(ctx context.Context, id int64) (trade.Account, error) {
	return one(t.q, ctx, scan.Account, reads.LockAccountByID, id)
}

func (t *tx) LockOrder(ctx context.Context, id int64) (trade.Order, error) {
	return one(t.q, ctx, scan.Order, reads.LockOrder, id)
}

func (t *tx) LockQuote(ctx context.Context, symbol string) (trade.Quote, error) {
	return one(t.q, ctx, scan.Quote, reads.LockQuote, symbol)
}

func (t *tx) LockHolding(ctx context.Context, id int64) (trade.Holding, error) {
	return one(t.q, ctx, scan.Holding, reads.LockHolding, id)
}

// RequestKey implements store.Reader (through the primary key).
func (q q) RequestKey(ctx context.Context, key string) (trade.RequestKey, error) {
	return one(q, ctx, sqlstore.ScanRequestKey, reads.RequestKey, key)
}
