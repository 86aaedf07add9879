package sqlstore

// ReadSQL is the read statements of store.Reader and the Lock* reads of store.Tx, written once
// here with ? parameters and built for a dialect by NewDialect (Rebind), as the writes are: the
// two stores' statements differed only in their placeholders. Each store keeps how it runs a
// statement (pgx's per-connection cache, SQLite's prepared-statement cache) and its Quotes,
// which the two answer differently.
type ReadSQL struct {
	Account, Profile, AccountWithProfile, AccountSummary, PasswordHash string
	Holding, Holdings, UserHoldings, UserHoldingsWithQuotes            string
	// UserClosedOrders and UserAccountPage take the user id once for each ? (two, three),
	// every ? being a parameter of its own once rebound; then the limit where there is one.
	UserOrders, UserClosedOrders, UserAccountPage        string
	Order, Orders, ClosedOrders, OrdersAfter, OpenOrders string
	Quote, IndexQuotes, RequestKey                       string
	LockAccount, LockAccountByID, LockOrder, LockQuote   string
	LockHolding                                          string
}

// userAccount selects a user's account id inside a User* statement (unique index on userid).
const userAccount = "(SELECT accountid FROM accounts WHERE userid = ?)"

// newReads builds d's read statements; d.Limit and d.ForUpdate are set.
func newReads(d *Dialect) ReadSQL {
	p := d.Rebind
	limit := " LIMIT " + d.Limit
	lock := d.ForUpdate
	account := "SELECT " + AccountCols + " FROM accounts WHERE userid = ?"
	accountByID := "SELECT " + AccountCols + " FROM accounts WHERE accountid = ?"
	holding := "SELECT " + HoldingCols + " FROM holdings WHERE holdingid = ?"
	order := "SELECT " + OrderCols + " FROM orders WHERE orderid = ?"
	quote := "SELECT " + QuoteCols + " FROM quotes WHERE symbol = ?"
	return ReadSQL{
		Account:                p(account),
		Profile:                p("SELECT userid, " + ProfileCols + " FROM accounts WHERE userid = ?"),
		AccountWithProfile:     p("SELECT " + AccountCols + ", " + ProfileCols + " FROM accounts WHERE userid = ?"),
		AccountSummary:         p(accountSummarySQL),
		PasswordHash:           p("SELECT passwd FROM accounts WHERE userid = ?"),
		Holding:                p(holding),
		Holdings:               p("SELECT " + HoldingCols + " FROM holdings WHERE accountid = ? ORDER BY holdingid"),
		UserHoldings:           p("SELECT " + HoldingCols + " FROM holdings WHERE accountid = " + userAccount + " ORDER BY holdingid"),
		UserHoldingsWithQuotes: p(holdingsWithQuotesSQL),
		UserOrders: p("SELECT " + OrderCols + " FROM orders WHERE accountid = " + userAccount +
			" ORDER BY opendate DESC, orderid DESC" + limit),
		// The account's marker row (store.MarkedOrders) first, then the closed orders: the
		// account page asks on every visit, and usually nothing is closed.
		UserClosedOrders: p("SELECT 0, accountid, NULL, '', '', '', NULL, NULL, 0, 0, 0 FROM accounts WHERE userid = ?" +
			" UNION ALL SELECT " + OrderCols + " FROM orders WHERE accountid = " + userAccount + " AND status = 'closed'"),
		UserAccountPage: p(accountPageSQL(d.Limit)),
		Order:           p(order),
		Orders:          p("SELECT " + OrderCols + " FROM orders WHERE accountid = ? ORDER BY opendate DESC, orderid DESC" + limit),
		ClosedOrders:    p("SELECT " + OrderCols + " FROM orders WHERE accountid = ? AND status = 'closed' ORDER BY orderid"),
		// OrdersAfter through the primary key, OpenOrders through the orders_open partial index.
		OrdersAfter: p("SELECT " + OrderCols + " FROM orders WHERE orderid > ? ORDER BY orderid" + limit),
		OpenOrders:  p("SELECT " + OrderCols + " FROM orders WHERE status = 'open' AND orderid > ? ORDER BY orderid" + limit),
		Quote:       p(quote),
		// symbol is COLLATE "C" in PostgreSQL and BINARY in SQLite, so the range is a byte
		// range the primary key serves, and LIKE 's:1__' only filters it.
		IndexQuotes:     "SELECT " + QuoteCols + " FROM quotes WHERE symbol >= 's:1' AND symbol < 's:2' AND symbol LIKE 's:1__' ORDER BY symbol",
		RequestKey:      p(RequestKeySQL),
		LockAccount:     p(account + lock),
		LockAccountByID: p(accountByID + lock),
		LockOrder:       p(order + lock),
		LockQuote:       p(quote + lock),
		LockHolding:     p(holding + lock),
	}
}

// accountSummarySQL is AccountSummary's statement: the account's columns, then the number of
// its holdings and their purchase basis (each an aggregate over the holdings index on
// accountid; the basis an exact integer sum in cents, bigint in PostgreSQL as in SQLite).
const accountSummarySQL = "SELECT " + AccountCols + ", " +
	"(SELECT count(*) FROM holdings h WHERE h.accountid = a.accountid), " +
	"(SELECT CAST(COALESCE(sum(h.purchaseprice * h.quantity), 0) AS BIGINT) FROM holdings h WHERE h.accountid = a.accountid) " +
	"FROM accounts a WHERE a.userid = ?"

// holdingsWithQuotesSQL is UserHoldingsWithQuotes' statement: the holding's columns, then the
// quote's, zero where the holding's symbol has no quote (holdings h LEFT JOIN quotes q by
// primary key).
const holdingsWithQuotesSQL = "SELECT h.holdingid, h.accountid, h.symbol, h.quantity, h.purchaseprice, h.purchasedate, " +
	"COALESCE(q.symbol, ''), COALESCE(q.companyname, ''), COALESCE(q.price, 0), COALESCE(q.open, 0), " +
	"COALESCE(q.low, 0), COALESCE(q.high, 0), COALESCE(q.change, 0), COALESCE(q.volume, 0) " +
	"FROM holdings h LEFT JOIN quotes q ON q.symbol = h.symbol WHERE h.accountid = " + userAccount + " ORDER BY h.holdingid"
