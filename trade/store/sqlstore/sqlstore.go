// Package sqlstore is the code the two SQL stores (trade/store/postgres and trade/store/sqlite)
// share, written once: the column lists, the row scanners, the load (its marker, the generated
// rows, the pristine-copy restore statements of Reset) and the audit's run. What stays in each
// store is its dialect: placeholders, how a timestamp is stored, row locks, bulk loading,
// statement caching and error codes.
//
// The scanners take a store's timestamp column type as a type parameter (TimeCol), so each
// driver scans a timestamp straight into its native representation (PostgreSQL's TIMESTAMPTZ,
// SQLite's integer microseconds) without a conversion through interface values on every row.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/store"
)

// Scanner is one row: *sql.Row, *sql.Rows, pgx.Row and pgx.Rows all are.
type Scanner interface{ Scan(dest ...any) error }

// Rows is a result set both drivers' row types satisfy (the caller closes it: the two Close
// methods differ).
type Rows interface {
	Scanner
	Next() bool
	Err() error
}

// The columns every read selects, in the order the scanners take them.
const (
	AccountCols = "accountid, userid, balance, openbalance, creationdate, lastlogin, logincount, logoutcount"
	ProfileCols = "fullname, address, email, creditcard"
	HoldingCols = "holdingid, accountid, symbol, quantity, purchaseprice, purchasedate"
	OrderCols   = "orderid, accountid, holdingid, symbol, ordertype, status, opendate, completiondate, quantity, price, fee"
	QuoteCols   = "symbol, companyname, price, open, low, high, change, volume"
)

// NotFound maps a driver's "no rows" (pgx.ErrNoRows wraps sql.ErrNoRows) to store.ErrNotFound.
func NotFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return store.ErrNotFound
	}
	return err
}

// TimeCol is a store's destination for a timestamp column: a *T is handed to Scan, and UTC
// reads back what was scanned, in UTC (the zero time for NULL).
type TimeCol[T any] interface {
	*T
	UTC() time.Time
}

// Scan holds the row scanners of a store whose timestamp columns scan into T. Each method
// maps a driver's "no rows" to store.ErrNotFound.
type Scan[T any, P TimeCol[T]] struct{}

// The scanners put a row's destinations (the values, the []any of pointers Scan takes) in one
// struct: pointers to separate locals, passed to Scan through interfaces, made each local a
// heap allocation of its own (eight to fifteen per row, most of a page's allocations after the
// driver's); now a row costs one (TestScanAllocations).

// accountRow is the destinations of AccountCols and up to four extra columns.
type accountRow[T any] struct {
	a             trade.Account
	created, last T
	bal, open     int64
	p             trade.AccountProfile
	n, basis      int64
	ptrs          [12]any
}

// account scans AccountCols, then the extra columns (pointers into d).
func (Scan[T, P]) account(r Scanner, d *accountRow[T], extra ...any) (trade.Account, error) {
	dest := append(d.ptrs[:0], &d.a.AccountID, &d.a.UserID, &d.bal, &d.open, P(&d.created), P(&d.last), &d.a.LoginCount, &d.a.LogoutCount)
	err := r.Scan(append(dest, extra...)...)
	a := d.a
	a.Balance, a.OpenBalance = trade.Money(d.bal), trade.Money(d.open)
	a.CreationDate, a.LastLogin = P(&d.created).UTC(), P(&d.last).UTC()
	return a, NotFound(err)
}

// Account scans AccountCols.
func (s Scan[T, P]) Account(r Scanner) (trade.Account, error) {
	return s.account(r, new(accountRow[T]))
}

// AccountWithProfile scans AccountCols, then ProfileCols.
func (s Scan[T, P]) AccountWithProfile(r Scanner) (trade.Account, trade.AccountProfile, error) {
	d := new(accountRow[T])
	a, err := s.account(r, d, &d.p.FullName, &d.p.Address, &d.p.Email, &d.p.CreditCard)
	if err != nil {
		return trade.Account{}, trade.AccountProfile{}, err
	}
	p := d.p
	p.UserID = a.UserID
	return a, p, nil
}

// AccountSummary scans a row of ReadSQL.AccountSummary: AccountCols, then the holdings' count
// and purchase basis.
func (s Scan[T, P]) AccountSummary(r Scanner) (trade.Account, trade.HoldingsSummary, error) {
	d := new(accountRow[T])
	a, err := s.account(r, d, &d.n, &d.basis)
	if err != nil {
		return trade.Account{}, trade.HoldingsSummary{}, err
	}
	return a, trade.HoldingsSummary{Count: int(d.n), Basis: trade.Money(d.basis)}, nil
}

// Profile scans "userid, " + ProfileCols.
func (Scan[T, P]) Profile(r Scanner) (trade.AccountProfile, error) {
	var p trade.AccountProfile
	err := r.Scan(&p.UserID, &p.FullName, &p.Address, &p.Email, &p.CreditCard)
	return p, NotFound(err)
}

// holdingRow is the destinations of HoldingCols, then QuoteCols.
type holdingRow[T any] struct {
	h                                   trade.Holding
	x                                   trade.Quote
	hprice, price, open, low, high, chg int64
	bought                              T
	ptrs                                [14]any
}

// holding scans HoldingCols into d, and QuoteCols after them if withQuote.
func (Scan[T, P]) holding(r Scanner, d *holdingRow[T], withQuote bool) (trade.Holding, trade.Quote, error) {
	dest := append(d.ptrs[:0], &d.h.HoldingID, &d.h.AccountID, &d.h.Symbol, &d.h.Quantity, &d.hprice, P(&d.bought))
	if withQuote {
		dest = append(dest, &d.x.Symbol, &d.x.CompanyName, &d.price, &d.open, &d.low, &d.high, &d.chg, &d.x.Volume)
	}
	if err := r.Scan(dest...); err != nil {
		return trade.Holding{}, trade.Quote{}, NotFound(err)
	}
	h, x := d.h, d.x
	h.PurchasePrice, h.PurchaseDate = trade.Money(d.hprice), P(&d.bought).UTC()
	x.Price, x.Open, x.Low, x.High, x.Change = trade.Money(d.price), trade.Money(d.open), trade.Money(d.low), trade.Money(d.high), trade.Money(d.chg)
	return h, x, nil
}

// Holding scans HoldingCols.
func (s Scan[T, P]) Holding(r Scanner) (trade.Holding, error) {
	h, _, err := s.holding(r, new(holdingRow[T]), false)
	return h, err
}

// HoldingWithQuote scans a row of ReadSQL.UserHoldingsWithQuotes: HoldingCols, then QuoteCols.
func (s Scan[T, P]) HoldingWithQuote(r Scanner) (trade.Holding, trade.Quote, error) {
	return s.holding(r, new(holdingRow[T]), true)
}

// orderRow is the destinations of OrderCols, and of an accountPageSQL row: the part before
// them, the two text columns after.
type orderRow[T any] struct {
	o            trade.Order
	part         int
	hid          sql.NullInt64
	opened, done T
	typ, status  string
	price, fee   int64
	email, card  string
	ptrs         [14]any
}

// Order scans OrderCols.
func (s Scan[T, P]) Order(r Scanner) (trade.Order, error) {
	d := new(orderRow[T])
	err := r.Scan(s.orderDest(d, d.ptrs[:0])...)
	return s.orderOf(d), NotFound(err)
}

// orderDest appends the destinations of OrderCols in d to dest.
func (Scan[T, P]) orderDest(d *orderRow[T], dest []any) []any {
	return append(dest, &d.o.OrderID, &d.o.AccountID, &d.hid, &d.o.Symbol, &d.typ, &d.status, P(&d.opened), P(&d.done), &d.o.Quantity, &d.price,
		&d.fee)
}

// orderOf is the order scanned into d.
func (Scan[T, P]) orderOf(d *orderRow[T]) trade.Order {
	o := d.o
	o.HoldingID = d.hid.Int64
	o.Type, o.Status, o.Price, o.Fee = trade.OrderType(d.typ), trade.OrderStatus(d.status), trade.Money(d.price), trade.Money(d.fee)
	o.OpenDate, o.CompletionDate = P(&d.opened).UTC(), P(&d.done).UTC()
	return o
}

// The account page's statement (accountPageSQL) answers the account, its profile, its closed
// orders and its most recent ones in one UNION ALL. Every row is a part (0: the account; 1: a
// closed order; 2: a recent one), OrderCols and two text columns. The account's row lays its
// columns over the orders' columns of the same type, since PostgreSQL wants a UNION's columns
// to agree in type (SQLite would not mind); the scanner puts them back:
//
//	OrderCols:   orderid  accountid holdingid   symbol ordertype status  opendate     completiondate quantity   price       fee  +2
//	account row: balance  accountid openbalance userid fullname  address creationdate lastlogin      logincount logoutcount 0    email creditcard
const (
	accountPageAccount = "0, balance, accountid, openbalance, userid, fullname, address, creationdate, lastlogin, " +
		"logincount, logoutcount, 0, email, creditcard"
	accountPageOrder = OrderCols + ", '', ''"
)

// accountPageSQL is store.Reader.UserAccountPage's statement, with ? for the user id (three
// of them) and limit the LIMIT's value. The parts' rows come in any order
// (AccountPage sorts them).
func accountPageSQL(limit string) string {
	return "SELECT " + accountPageAccount + " FROM accounts WHERE userid = ?" +
		" UNION ALL SELECT 1, " + accountPageOrder + " FROM orders WHERE accountid = " + userAccount + " AND status = 'closed'" +
		" UNION ALL SELECT * FROM (SELECT 2, " + accountPageOrder + " FROM orders WHERE accountid = " + userAccount +
		" ORDER BY opendate DESC, orderid DESC LIMIT " + limit + ") recent"
}

// AccountPage scans the rows of accountPageSQL: the account and profile from the account's
// row, the orders sorted as store.SortAccountPage does; ErrNotFound without the account's row.
func (s Scan[T, P]) AccountPage(rows Rows) (trade.AccountPage, error) {
	var pg trade.AccountPage
	found := false
	d := new(orderRow[T])
	for rows.Next() {
		dest := append(s.orderDest(d, append(d.ptrs[:0], &d.part)), &d.email, &d.card)
		if err := rows.Scan(dest...); err != nil {
			return trade.AccountPage{}, err
		}
		o := s.orderOf(d)
		switch d.part {
		case 0:
			found = true
			pg.Account = trade.Account{AccountID: o.AccountID, UserID: o.Symbol, Balance: trade.Money(o.OrderID),
				OpenBalance: trade.Money(o.HoldingID), CreationDate: o.OpenDate, LastLogin: o.CompletionDate,
				LoginCount: o.Quantity, LogoutCount: int64(o.Price)}
			pg.Profile = trade.AccountProfile{UserID: o.Symbol, FullName: d.typ, Address: d.status, Email: d.email, CreditCard: d.card}
		case 1:
			pg.Closed = append(pg.Closed, o)
		default:
			pg.Orders = append(pg.Orders, o)
		}
	}
	if err := rows.Err(); err != nil {
		return trade.AccountPage{}, err
	}
	if !found {
		return trade.AccountPage{}, store.ErrNotFound
	}
	store.SortAccountPage(&pg)
	return pg, nil
}

// quoteRow is the destinations of QuoteCols.
type quoteRow struct {
	x                           trade.Quote
	price, open, low, high, chg int64
	ptrs                        [8]any
}

// Quote scans QuoteCols.
func (Scan[T, P]) Quote(r Scanner) (trade.Quote, error) {
	d := new(quoteRow)
	err := r.Scan(append(d.ptrs[:0], &d.x.Symbol, &d.x.CompanyName, &d.price, &d.open, &d.low, &d.high, &d.chg, &d.x.Volume)...)
	x := d.x
	x.Price, x.Open, x.Low, x.High, x.Change = trade.Money(d.price), trade.Money(d.open), trade.Money(d.low), trade.Money(d.high), trade.Money(d.chg)
	return x, NotFound(err)
}

// Collect scans every row of rows with scan.
func Collect[T any](rows Rows, scan func(Scanner) (T, error)) ([]T, error) {
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// CollectHoldingsWithQuotes scans the rows of ReadSQL.UserHoldingsWithQuotes.
func (s Scan[T, P]) CollectHoldingsWithQuotes(rows Rows) ([]trade.Holding, []trade.Quote, error) {
	var hs []trade.Holding
	var qs []trade.Quote
	for rows.Next() {
		h, x, err := s.HoldingWithQuote(rows)
		if err != nil {
			return nil, nil, err
		}
		hs, qs = append(hs, h), append(qs, x)
	}
	return hs, qs, rows.Err()
}

// nullID is a holding id as a column value: NULL for none.
func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

// The columns Reset restores from the pristine copies (all but the key).
const (
	restoreAccountCols = "userid, passwd, fullname, address, email, creditcard, balance, openbalance, creationdate, lastlogin, logincount, " +
		"logoutcount"
	restoreHoldingCols = "accountid, symbol, quantity, purchaseprice, purchasedate"
	restoreQuoteCols   = "companyname, price, open, low, high, change, volume"
)

// qual qualifies a column list: qual("b", "x, y") = "b.x, b.y".
func qual(t, cols string) string { return t + "." + strings.ReplaceAll(cols, ", ", ", "+t+".") }

// restore writes back the rows of table that differ from their pristine copy table_base;
// distinct is the dialect's null-safe "differs" operator (IS DISTINCT FROM, SQLite's IS NOT).
func restore(table, key, cols, distinct string) string {
	return "UPDATE " + table + " SET (" + cols + ") = (" + qual("b", cols) + ") FROM " + table + "_base b WHERE " +
		table + "." + key + " = b." + key + " AND (" + qual(table, cols) + ") " + distinct + " (" + qual("b", cols) + ")"
}

// restoreSQL is Reset's statements that put loaded rows back from their pristine copies.
type restoreSQL struct {
	// holdings puts back every loaded holding that differs, after missingHoldings inserted the
	// missing ones again.
	missingHoldings, holdings, accounts, quotes string
}

// newRestore builds the restoreSQL statements in the dialect whose null-safe "differs"
// operator is distinct.
func newRestore(distinct string) restoreSQL {
	return restoreSQL{
		missingHoldings: "INSERT INTO holdings SELECT b.* FROM holdings_base b WHERE NOT EXISTS (SELECT 1 FROM holdings h WHERE h.holdingid = " +
			"b.holdingid)",
		holdings: restore("holdings", "holdingid", restoreHoldingCols, distinct),
		accounts: restore("accounts", "accountid", restoreAccountCols, distinct),
		quotes:   restore("quotes", "symbol", restoreQuoteCols, distinct),
	}
}

// Audit runs the audit queries (store.AuditQueries) in c, one read-only snapshot, after the
// load marker (read in the same snapshot: ErrNotLoaded if there is none).
func Audit(ctx context.Context, c Conn, limit int) (store.AuditReport, error) {
	li, err := LoadMarker(c.QueryRow(ctx, LoadMarkerSQL))
	if err != nil {
		return store.AuditReport{}, err
	}
	rep := store.AuditReport{Scope: store.AuditScope{LoadedMaxOrderID: li.MaxOrderID}}
	sc := &rep.Scope
	if err := c.QueryRow(ctx, store.AuditScopeQuery).Scan(&sc.Accounts, &sc.Orders, &sc.Holdings, &sc.Quotes); err != nil {
		return rep, err
	}
	if err := c.QueryRow(ctx, store.PlacedQuery(li.MaxOrderID)).Scan(&sc.Placed); err != nil {
		return rep, err
	}
	for _, query := range store.AuditQueries(li.MaxOrderID) {
		if err := c.Each(ctx, query, func(r Scanner) error { return rep.Collect(r.Scan, limit) }); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// Each hands every row of rows to row, in order.
func Each(rows Rows, row func(Scanner) error) error {
	for rows.Next() {
		if err := row(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
