package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/store"
	"github.com/tradebench/tradebench/trade/store/sqlstore"
)

// querier is what the pool and a transaction have in common.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

type q struct{ db querier }

func tm(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

// timestamptz is where a TIMESTAMPTZ column scans: pgx decodes straight into it
// (pgtype.TimestamptzScanner).
type timestamptz struct{ pgtype.Timestamptz }

// UTC implements sqlstore.TimeCol.
func (t timestamptz) UTC() time.Time {
	if !t.Valid {
		return time.Time{}
	}
	return t.Time.UTC()
}

// scan holds the shared row scanners, made for TIMESTAMPTZ columns.
var scan sqlstore.Scan[timestamptz, *timestamptz]

func one[T any](q q, ctx context.Context, scan func(sqlstore.Scanner) (T, error), sql string, args ...any) (T, error) {
	return scan(q.db.QueryRow(ctx, sql, args...))
}

func all[T any](q q, ctx context.Context, scan func(sqlstore.Scanner) (T, error), sql string, args ...any) ([]T, error) {
	rows, err := q.db.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlstore.Collect(rows, scan)
}

// reads is the read statements, written once in sqlstore and numbered for PostgreSQL.
var reads = dialect.Reads()

func (q q) Account(ctx context.Context, userID string) (trade.Account, error) {
	return one(q, ctx, scan.Account, reads.Account, userID)
}

func (q q) Profile(ctx context.Context, userID string) (trade.AccountProfile, error) {
	return one(q, ctx, scan.Profile, reads.Profile, userID)
}

func (q q) AccountWithProfile(ctx context.Context, userID string) (trade.Account, trade.AccountProfile, error) {
	return scan.AccountWithProfile(q.db.QueryRow(ctx, reads.AccountWithProfile, userID))
}

func (q q) AccountSummary(ctx context.Context, userID string) (trade.Account, trade.HoldingsSummary, error) {
	return scan.AccountSummary(q.db.QueryRow(ctx, reads.AccountSummary, userID))
}

func (q q) PasswordHash(ctx context.Context, userID string) (string, error) {
	var h string
	return h, sqlstore.NotFound(q.db.QueryRow(ctx, reads.PasswordHash, userID).Scan(&h))
}

func (q q) Holdings(ctx context.Context, accountID int64) ([]trade.Holding, error) {
	return all(q, ctx, scan.Holding, reads.Holdings, accountID)
}

func (q q) UserHoldings(ctx context.Context, userID string) ([]trade.Holding, error) {
	hs, err := all(q, ctx, scan.Holding, reads.UserHoldings, userID)
	return store.OfUser(ctx, q, userID, hs, err)
}

func (q q) UserHoldingsWithQuotes(ctx context.Context, userID string) ([]trade.Holding, []trade.Quote, error) {
	rows, err := q.db.Query(ctx, reads.UserHoldingsWithQuotes, userID)
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
	rows, err := q.db.Query(ctx, reads.UserAccountPage, userID, userID, userID, limit)
	if err != nil {
		return trade.AccountPage{}, err
	}
	defer rows.Close()
	return scan.AccountPage(rows)
}

func (q q) Holding(ctx context.Context, id int64) (trade.Holding, error) {
	return one(q, ctx, scan.Holding, reads.Holding, id)
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

func (q q) Order(ctx context.Context, id int64) (trade.Order, error) {
	return one(q, ctx, scan.Order, reads.Order, id)
}

func (q q) Quote(ctx context.Context, symbol string) (trade.Quote, error) {
	return one(q, ctx, scan.Quote, reads.Quote, symbol)
}

// Quotes: one statement for any number of symbols (an array parameter).
func (q q) Quotes(ctx context.Context, symbols []string) ([]trade.Quote, error) {
	if len(symbols) == 0 {
		return nil, nil
	}
	return all(q, ctx, scan.Quote, "SELECT "+sqlstore.QuoteCols+" FROM quotes WHERE symbol = ANY($1)", symbols)
}

func (q q) IndexQuotes(ctx context.Context) ([]trade.Quote, error) {
	return all(q, ctx, scan.Quote, reads.IndexQuotes)
}

// tx is a read-write transaction; Lock* take row locks (FOR UPDATE); the writes are the
// shared ones.
type tx struct {
	q
	sqlstore.Writes
}

// dialect is PostgreSQL's for the statements sqlstore writes once.
var dialect = sqlstore.NewDialect(sqlstore.Dialect{
	Numbered:  true,
	Distinct:  "IS DISTINCT FROM",
	Time:      tm,
	IsUnique:  func(err error) bool { return pgCode(err) == "23505" }, // unique_violation
	Order:     scan.Order,
	Limit:     "?",
	ForUpdate: " FOR UPDATE",
})

// conn adapts a pool or transaction to sqlstore.Conn.
type conn struct{ db querier }

func (c conn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := c.db.Exec(ctx, query, args...)
	return tag.RowsAffected(), err
}

func (c conn) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Scanner {
	return c.db.QueryRow(ctx, query, args...)
}

func (c conn) Each(ctx context.Context, query string, row func(sqlstore.Scanner) error, args ...any) error {
	rows, err := c.db.Query(ctx, query, args...)
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
