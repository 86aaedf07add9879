package sqlstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/store"
)

// Conn runs statements for the shared code: a store's transaction, adapted to its driver.
type Conn interface {
	// Exec runs a statement and returns how many rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	// QueryRow runs a query for one row; a failure to run it comes back from Scan.
	QueryRow(ctx context.Context, query string, args ...any) Scanner
	// Each runs a query and hands each row to row, in order.
	Each(ctx context.Context, query string, row func(Scanner) error, args ...any) error
}

// Failed is a row whose query could not run: Scan returns err.
func Failed(err error) Scanner { return failed{err} }

type failed struct{ err error }

func (f failed) Scan(...any) error { return f.err }

// Dialect is what differs between the SQL stores in the statements written once here.
type Dialect struct {
	// Numbered: parameters are $1, $2, … (PostgreSQL) rather than ? (SQLite).
	Numbered bool
	// Distinct is the null-safe "differs" operator between row values: IS DISTINCT FROM, or
	// SQLite's IS NOT.
	Distinct string
	// Time is a timestamp as a column value (NULL for the zero time).
	Time func(time.Time) any
	// IsUnique reports a unique-key violation.
	IsUnique func(error) bool
	// Order scans OrderCols (the store's Scan.Order).
	Order func(Scanner) (trade.Order, error)
	// Limit is a LIMIT's value bound at run time: ? or an expression of it (SQLite's ?+0).
	Limit string
	// ForUpdate ends the Lock* reads: " FOR UPDATE" where rows are locked, or empty where the
	// transaction already excludes every other writer (SQLite).
	ForUpdate string

	sql   writeSQL
	reads ReadSQL
}

// writeSQL is the dialect's statements, built once by NewDialect.
type writeSQL struct {
	createAccount, updateAccount, updateProfile                 string
	createHolding, setHoldingQuantity, deleteHolding            string
	createOrder, updateOrder, completeClosedOrders, updateQuote string
	deleteTouched, restoreTouched, deleteOrders, deleteHoldings string
	countHoldings, deleteAccounts, claimKey, deleteKeys         string
	restore                                                     restoreSQL
}

// NewDialect builds a dialect's statements.
func NewDialect(d Dialect) *Dialect {
	p := d.Rebind
	touched := p("SELECT holdingid FROM orders WHERE orderid > ? AND ordertype = 'sell' AND holdingid <= ?")
	d.sql = writeSQL{
		createAccount: p(`INSERT INTO accounts (userid, passwd, fullname, address, email, creditcard,
		balance, openbalance, creationdate, lastlogin, logincount, logoutcount) VALUES (?,?,?,?,?,?,?,?,?,?,?,?) RETURNING accountid`),
		updateAccount: p("UPDATE accounts SET balance = ?, lastlogin = ?, logincount = ?, logoutcount = ? WHERE accountid = ?"),
		updateProfile: p(`UPDATE accounts SET fullname = ?, address = ?, email = ?, creditcard = ?,
		passwd = CASE WHEN ? = '' THEN passwd ELSE ? END WHERE userid = ?`),
		createHolding:      p("INSERT INTO holdings (accountid, symbol, quantity, purchaseprice, purchasedate) VALUES (?,?,?,?,?) RETURNING holdingid"),
		setHoldingQuantity: p("UPDATE holdings SET quantity = ? WHERE holdingid = ?"),
		deleteHolding:      p("DELETE FROM holdings WHERE holdingid = ?"),
		createOrder: p(`INSERT INTO orders (accountid, holdingid, symbol, ordertype, status, opendate, completiondate,
		quantity, price, fee) VALUES (?,?,?,?,?,?,?,?,?,?) RETURNING orderid`),
		updateOrder:          p("UPDATE orders SET status = ?, completiondate = ?, holdingid = ?, price = ? WHERE orderid = ?"),
		completeClosedOrders: p("UPDATE orders SET status = 'completed' WHERE accountid = ? AND status = 'closed' RETURNING " + OrderCols),
		updateQuote:          p("UPDATE quotes SET price = ?, low = ?, high = ?, change = ?, volume = ? WHERE symbol = ?"),
		deleteTouched:        "DELETE FROM holdings WHERE holdingid IN (" + touched + ")",
		restoreTouched:       "INSERT INTO holdings SELECT * FROM holdings_base WHERE holdingid IN (" + touched + ")",
		deleteOrders:         p("DELETE FROM orders WHERE orderid > ?"),
		deleteHoldings:       p("DELETE FROM holdings WHERE holdingid > ?"),
		countHoldings:        "SELECT count(*), CAST(coalesce(sum(quantity), 0) AS BIGINT) FROM holdings",
		deleteAccounts:       p("DELETE FROM accounts WHERE accountid > ?"),
		claimKey:             p("INSERT INTO requestkeys (idemkey, kind, userid, orderid) VALUES (?,?,?,?)"),
		deleteKeys:           "DELETE FROM requestkeys", // every key was stored by a run since the load
		restore:              newRestore(d.Distinct),
	}
	d.reads = newReads(&d)
	return &d
}

// Reads is the dialect's read statements.
func (d *Dialect) Reads() *ReadSQL { return &d.reads }

// Rebind writes a statement's ? parameters in the dialect's syntax.
func (d *Dialect) Rebind(query string) string {
	if !d.Numbered {
		return query
	}
	var b strings.Builder
	n := 0
	for _, c := range []byte(query) {
		if c != '?' {
			b.WriteByte(c)
			continue
		}
		n++
		b.WriteString("$" + strconv.Itoa(n))
	}
	return b.String()
}

// Writes implements the write primitives of store.Tx on one transaction.
type Writes struct {
	c Conn
	d *Dialect
}

// Writes returns the write primitives on c, a transaction.
func (d *Dialect) Writes(c Conn) Writes { return Writes{c, d} }

// exec runs a write and reports ErrNotFound when it touched no row.
func (w Writes) exec(ctx context.Context, query string, args ...any) error {
	n, err := w.c.Exec(ctx, query, args...)
	if err == nil && n == 0 {
		return store.ErrNotFound
	}
	return err
}

// insert runs an INSERT … RETURNING id (store.ErrDuplicate on a unique key).
func (w Writes) insert(ctx context.Context, query string, args ...any) (int64, error) {
	var id int64
	err := w.c.QueryRow(ctx, query, args...).Scan(&id)
	if err != nil && w.d.IsUnique(err) {
		return 0, store.ErrDuplicate
	}
	return id, err
}

// CreateAccount implements store.Tx.
func (w Writes) CreateAccount(ctx context.Context, a trade.Account, p trade.AccountProfile, hash string) (int64, error) {
	tm := w.d.Time
	return w.insert(ctx, w.d.sql.createAccount, a.UserID, hash, p.FullName, p.Address, p.Email, p.CreditCard,
		int64(a.Balance), int64(a.OpenBalance), tm(a.CreationDate), tm(a.LastLogin), a.LoginCount, a.LogoutCount)
}

// UpdateAccount implements store.Tx.
func (w Writes) UpdateAccount(ctx context.Context, a trade.Account) error {
	return w.exec(ctx, w.d.sql.updateAccount, int64(a.Balance), w.d.Time(a.LastLogin), a.LoginCount, a.LogoutCount, a.AccountID)
}

// UpdateProfile implements store.Tx.
func (w Writes) UpdateProfile(ctx context.Context, p trade.AccountProfile, hash string) error {
	return w.exec(ctx, w.d.sql.updateProfile, p.FullName, p.Address, p.Email, p.CreditCard, hash, hash, p.UserID)
}

// CreateHolding implements store.Tx.
func (w Writes) CreateHolding(ctx context.Context, h trade.Holding) (int64, error) {
	return w.insert(ctx, w.d.sql.createHolding, h.AccountID, h.Symbol, h.Quantity, int64(h.PurchasePrice), w.d.Time(h.PurchaseDate))
}

// SetHoldingQuantity implements store.Tx.
func (w Writes) SetHoldingQuantity(ctx context.Context, id, quantity int64) error {
	return w.exec(ctx, w.d.sql.setHoldingQuantity, quantity, id)
}

// DeleteHolding implements store.Tx.
func (w Writes) DeleteHolding(ctx context.Context, id int64) error {
	return w.exec(ctx, w.d.sql.deleteHolding, id)
}

// CreateOrder implements store.Tx.
func (w Writes) CreateOrder(ctx context.Context, o trade.Order) (int64, error) {
	tm := w.d.Time
	return w.insert(ctx, w.d.sql.createOrder, o.AccountID, nullID(o.HoldingID), o.Symbol, string(o.Type), string(o.Status),
		tm(o.OpenDate), tm(o.CompletionDate), o.Quantity, int64(o.Price), int64(o.Fee))
}

// UpdateOrder implements store.Tx.
func (w Writes) UpdateOrder(ctx context.Context, o trade.Order) error {
	return w.exec(ctx, w.d.sql.updateOrder, string(o.Status), w.d.Time(o.CompletionDate), nullID(o.HoldingID), int64(o.Price), o.OrderID)
}

// CompleteClosedOrders implements store.Tx.
func (w Writes) CompleteClosedOrders(ctx context.Context, accountID int64) ([]trade.Order, error) {
	var os []trade.Order
	err := w.c.Each(ctx, w.d.sql.completeClosedOrders, func(r Scanner) error {
		o, err := w.d.Order(r)
		o.Status = trade.StatusClosed // as it was: each closed-order alert is handed out once
		os = append(os, o)
		return err
	}, accountID)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(os, func(a, b trade.Order) int { return cmp.Compare(a.OrderID, b.OrderID) })
	return os, nil
}

// UpdateQuote implements store.Tx.
func (w Writes) UpdateQuote(ctx context.Context, x trade.Quote) error {
	return w.exec(ctx, w.d.sql.updateQuote, int64(x.Price), int64(x.Low), int64(x.High), int64(x.Change), x.Volume, x.Symbol)
}

// Reset returns the loaded rows to their loaded state inside c, one transaction (see
// store.Store.Reset), and returns the load marker it read there: the store then restarts its id
// sequences after the loaded ids, its own way.
func (d *Dialect) Reset(ctx context.Context, c Conn) (store.LoadInfo, error) {
	li, err := LoadMarker(c.QueryRow(ctx, LoadMarkerSQL))
	if err != nil {
		return li, err
	}
	s := d.sql
	type stmt struct {
		sql  string
		args []any
	}
	run := func(stmts ...stmt) error {
		for _, st := range stmts {
			if _, err := c.Exec(ctx, st.sql, st.args...); err != nil {
				return fmt.Errorf("reset: %w", err)
			}
		}
		return nil
	}
	err = run(
		stmt{s.deleteTouched, []any{li.MaxOrderID, li.MaxHoldingID}},
		stmt{s.restoreTouched, []any{li.MaxOrderID, li.MaxHoldingID}},
		stmt{s.deleteOrders, []any{li.MaxOrderID}},
		stmt{s.deleteHoldings, []any{li.MaxHoldingID}},
		stmt{s.deleteKeys, nil},
	)
	if err != nil {
		return li, err
	}
	var n, shares int64
	if err := c.QueryRow(ctx, s.countHoldings).Scan(&n, &shares); err != nil {
		return li, err
	}
	if n != li.MaxHoldingID || shares != li.HoldingShares {
		// Changed other than through sells: compare every loaded holding.
		if err := run(stmt{s.restore.missingHoldings, nil}, stmt{s.restore.holdings, nil}); err != nil {
			return li, err
		}
	}
	return li, run(stmt{s.deleteAccounts, []any{li.MaxAccountID}}, stmt{s.restore.accounts, nil}, stmt{s.restore.quotes, nil})
}
