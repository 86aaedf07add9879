package postgres

import (
	"context"
	"sort"
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

const (
	accountCols = sqlstore.AccountCols
	holdingCols = sqlstore.HoldingCols
	orderCols   = sqlstore.OrderCols
	quoteCols   = sqlstore.QuoteCols
)

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

// exec runs a write and reports ErrNotFound when it touched no row.
func (q q) exec(ctx context.Context, sql string, args ...any) error {
	tag, err := q.db.Exec(ctx, sql, args...)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return store.ErrNotFound
	}
	return nil
}

func (q q) Account(ctx context.Context, userID string) (trade.Account, error) {
	return one(q, ctx, scan.Account, "SELECT "+accountCols+" FROM accounts WHERE userid = $1", userID)
}

func (q q) Profile(ctx context.Context, userID string) (trade.AccountProfile, error) {
	return one(q, ctx, scan.Profile, "SELECT userid, "+sqlstore.ProfileCols+" FROM accounts WHERE userid = $1", userID)
}

func (q q) AccountWithProfile(ctx context.Context, userID string) (trade.Account, trade.AccountProfile, error) {
	return scan.AccountWithProfile(q.db.QueryRow(ctx, "SELECT "+accountCols+", "+sqlstore.ProfileCols+" FROM accounts WHERE userid = $1", userID))
}

func (q q) PasswordHash(ctx context.Context, userID string) (string, error) {
	var h string
	return h, sqlstore.NotFound(q.db.QueryRow(ctx, "SELECT passwd FROM accounts WHERE userid = $1", userID).Scan(&h))
}

func (q q) Holdings(ctx context.Context, accountID int64) ([]trade.Holding, error) {
	return all(q, ctx, scan.Holding, "SELECT "+holdingCols+" FROM holdings WHERE accountid = $1 ORDER BY holdingid", accountID)
}

// userAccount selects a user's account id inside a User* statement (unique index on userid).
const userAccount = "(SELECT accountid FROM accounts WHERE userid = $1)"

func (q q) UserHoldings(ctx context.Context, userID string) ([]trade.Holding, error) {
	hs, err := all(q, ctx, scan.Holding, "SELECT "+holdingCols+" FROM holdings WHERE accountid = "+userAccount+" ORDER BY holdingid", userID)
	return store.OfUser(ctx, q, userID, hs, err)
}

func (q q) UserHoldingsWithQuotes(ctx context.Context, userID string) ([]trade.Holding, []trade.Quote, error) {
	rows, err := q.db.Query(ctx, store.HoldingsWithQuotesSQL(userAccount), userID)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	hs, qs, err := scan.CollectHoldingsWithQuotes(rows)
	return store.OfUserWithQuotes(ctx, q, userID, hs, qs, err)
}

func (q q) UserOrders(ctx context.Context, userID string, limit int) ([]trade.Order, error) {
	os, err := all(q, ctx, scan.Order, "SELECT "+orderCols+" FROM orders WHERE accountid = "+userAccount+" ORDER BY opendate DESC, orderid DESC LIMIT $2", userID, limit)
	return store.OfUser(ctx, q, userID, os, err)
}

// UserClosedOrders answers the account's marker row (store.MarkedOrders) with the closed
// orders: the account page asks on every visit, and usually nothing is closed.
func (q q) UserClosedOrders(ctx context.Context, userID string) ([]trade.Order, error) {
	return store.MarkedOrders(all(q, ctx, scan.Order, "SELECT 0, accountid, NULL, '', '', '', 'epoch', NULL, 0, 0, 0 FROM accounts WHERE userid = $1 UNION ALL SELECT "+orderCols+" FROM orders WHERE accountid = "+userAccount+" AND status = 'closed'", userID))
}

func (q q) Holding(ctx context.Context, id int64) (trade.Holding, error) {
	return one(q, ctx, scan.Holding, "SELECT "+holdingCols+" FROM holdings WHERE holdingid = $1", id)
}

func (q q) Orders(ctx context.Context, accountID int64, limit int) ([]trade.Order, error) {
	return all(q, ctx, scan.Order, "SELECT "+orderCols+" FROM orders WHERE accountid = $1 ORDER BY opendate DESC, orderid DESC LIMIT $2", accountID, limit)
}

func (q q) ClosedOrders(ctx context.Context, accountID int64) ([]trade.Order, error) {
	return all(q, ctx, scan.Order, "SELECT "+orderCols+" FROM orders WHERE accountid = $1 AND status = 'closed' ORDER BY orderid", accountID)
}

// OrdersAfter implements store.Store (through the primary key).
func (q q) OrdersAfter(ctx context.Context, afterID int64, limit int) ([]trade.Order, error) {
	return all(q, ctx, scan.Order, "SELECT "+orderCols+" FROM orders WHERE orderid > $1 ORDER BY orderid LIMIT $2", afterID, limit)
}

// OpenOrders implements store.Store (through the orders_open partial index).
func (q q) OpenOrders(ctx context.Context, afterID int64, limit int) ([]trade.Order, error) {
	return all(q, ctx, scan.Order, "SELECT "+orderCols+" FROM orders WHERE status = 'open' AND orderid > $1 ORDER BY orderid LIMIT $2", afterID, limit)
}

func (q q) Order(ctx context.Context, id int64) (trade.Order, error) {
	return one(q, ctx, scan.Order, "SELECT "+orderCols+" FROM orders WHERE orderid = $1", id)
}

func (q q) Quote(ctx context.Context, symbol string) (trade.Quote, error) {
	return one(q, ctx, scan.Quote, "SELECT "+quoteCols+" FROM quotes WHERE symbol = $1", symbol)
}

// Quotes: one statement for any number of symbols (an array parameter).
func (q q) Quotes(ctx context.Context, symbols []string) ([]trade.Quote, error) {
	if len(symbols) == 0 {
		return nil, nil
	}
	return all(q, ctx, scan.Quote, "SELECT "+quoteCols+" FROM quotes WHERE symbol = ANY($1)", symbols)
}

// IndexQuotes: symbol is COLLATE "C", so the range is a byte range the primary key serves.
func (q q) IndexQuotes(ctx context.Context) ([]trade.Quote, error) {
	return all(q, ctx, scan.Quote, "SELECT "+quoteCols+" FROM quotes WHERE symbol >= 's:1' AND symbol < 's:2' AND symbol LIKE 's:1__' ORDER BY symbol")
}

// tx is a read-write transaction; Lock* take row locks (FOR UPDATE).
type tx struct{ q }

func (t *tx) LockAccount(ctx context.Context, userID string) (trade.Account, error) {
	return one(t.q, ctx, scan.Account, "SELECT "+accountCols+" FROM accounts WHERE userid = $1 FOR UPDATE", userID)
}

func (t *tx) LockAccountByID(ctx context.Context, id int64) (trade.Account, error) {
	return one(t.q, ctx, scan.Account, "SELECT "+accountCols+" FROM accounts WHERE accountid = $1 FOR UPDATE", id)
}

func (t *tx) LockOrder(ctx context.Context, id int64) (trade.Order, error) {
	return one(t.q, ctx, scan.Order, "SELECT "+orderCols+" FROM orders WHERE orderid = $1 FOR UPDATE", id)
}

func (t *tx) LockQuote(ctx context.Context, symbol string) (trade.Quote, error) {
	return one(t.q, ctx, scan.Quote, "SELECT "+quoteCols+" FROM quotes WHERE symbol = $1 FOR UPDATE", symbol)
}

func (t *tx) LockHolding(ctx context.Context, id int64) (trade.Holding, error) {
	return one(t.q, ctx, scan.Holding, "SELECT "+holdingCols+" FROM holdings WHERE holdingid = $1 FOR UPDATE", id)
}

func (t *tx) insert(ctx context.Context, sql string, args ...any) (int64, error) {
	var id int64
	err := t.db.QueryRow(ctx, sql, args...).Scan(&id)
	if pgCode(err) == "23505" { // unique_violation
		return 0, store.ErrDuplicate
	}
	return id, err
}

func (t *tx) CreateAccount(ctx context.Context, a trade.Account, p trade.AccountProfile, hash string) (int64, error) {
	return t.insert(ctx, `INSERT INTO accounts (userid, passwd, fullname, address, email, creditcard,
		balance, openbalance, creationdate, lastlogin, logincount, logoutcount)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12) RETURNING accountid`,
		a.UserID, hash, p.FullName, p.Address, p.Email, p.CreditCard,
		int64(a.Balance), int64(a.OpenBalance), a.CreationDate, tm(a.LastLogin), a.LoginCount, a.LogoutCount)
}

func (t *tx) UpdateAccount(ctx context.Context, a trade.Account) error {
	return t.exec(ctx, "UPDATE accounts SET balance = $1, lastlogin = $2, logincount = $3, logoutcount = $4 WHERE accountid = $5",
		int64(a.Balance), tm(a.LastLogin), a.LoginCount, a.LogoutCount, a.AccountID)
}

func (t *tx) UpdateProfile(ctx context.Context, p trade.AccountProfile, hash string) error {
	return t.exec(ctx, `UPDATE accounts SET fullname = $1, address = $2, email = $3, creditcard = $4,
		passwd = CASE WHEN $5 = '' THEN passwd ELSE $5 END WHERE userid = $6`,
		p.FullName, p.Address, p.Email, p.CreditCard, hash, p.UserID)
}

func (t *tx) CreateHolding(ctx context.Context, h trade.Holding) (int64, error) {
	return t.insert(ctx, "INSERT INTO holdings (accountid, symbol, quantity, purchaseprice, purchasedate) VALUES ($1,$2,$3,$4,$5) RETURNING holdingid",
		h.AccountID, h.Symbol, h.Quantity, int64(h.PurchasePrice), h.PurchaseDate)
}

func (t *tx) SetHoldingQuantity(ctx context.Context, id, quantity int64) error {
	return t.exec(ctx, "UPDATE holdings SET quantity = $1 WHERE holdingid = $2", quantity, id)
}

func (t *tx) DeleteHolding(ctx context.Context, id int64) error {
	return t.exec(ctx, "DELETE FROM holdings WHERE holdingid = $1", id)
}

func (t *tx) CreateOrder(ctx context.Context, o trade.Order) (int64, error) {
	return t.insert(ctx, `INSERT INTO orders (accountid, holdingid, symbol, ordertype, status, opendate, completiondate,
		quantity, price, fee) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10) RETURNING orderid`,
		o.AccountID, sqlstore.NullID(o.HoldingID), o.Symbol, string(o.Type), string(o.Status), o.OpenDate, tm(o.CompletionDate),
		o.Quantity, int64(o.Price), int64(o.Fee))
}

func (t *tx) UpdateOrder(ctx context.Context, o trade.Order) error {
	return t.exec(ctx, "UPDATE orders SET status = $1, completiondate = $2, holdingid = $3, price = $4 WHERE orderid = $5",
		string(o.Status), tm(o.CompletionDate), sqlstore.NullID(o.HoldingID), int64(o.Price), o.OrderID)
}

func (t *tx) CompleteClosedOrders(ctx context.Context, accountID int64) ([]trade.Order, error) {
	os, err := all(t.q, ctx, scan.Order, "UPDATE orders SET status = 'completed' WHERE accountid = $1 AND status = 'closed' RETURNING "+orderCols, accountID)
	for i := range os {
		os[i].Status = trade.StatusClosed
	}
	sort.Slice(os, func(i, j int) bool { return os[i].OrderID < os[j].OrderID })
	return os, err
}

func (t *tx) UpdateQuote(ctx context.Context, x trade.Quote) error {
	return t.exec(ctx, "UPDATE quotes SET price = $1, low = $2, high = $3, change = $4, volume = $5 WHERE symbol = $6",
		int64(x.Price), int64(x.Low), int64(x.High), int64(x.Change), x.Volume, x.Symbol)
}
