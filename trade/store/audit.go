package store

import (
	"context"
	"strconv"
)

// Auditor is implemented by stores that can check the StockTrader invariants in the database
// itself (see package trade/audit, which turns the rows into a report). The checks are
// set-based queries that return only the violating rows, so an audit of the full data set
// (500,000 accounts, 2.5 million orders and holdings) never pulls the data into the process.
type Auditor interface {
	// Audit runs every check in one consistent read-only snapshot and returns at most limit
	// rows of each kind of violation, with the total number of each (ErrNotLoaded if the
	// database was never loaded: the loaded quotes are the volume baseline).
	Audit(ctx context.Context, limit int) (AuditReport, error)
}

// Audit violation kinds: what a violating row means. The check that finds each is described
// with its query below.
const (
	AuditOpenOrder     = "open-order"       // an order not in a final state
	AuditOrphanOrder   = "orphan-order"     // an order of no account, of no quote, or of no known type
	AuditBuyUnlinked   = "buy-unlinked"     // a completed buy that names no holding
	AuditBalance       = "balance"          // balance ≠ opening balance + sells − buys − fees
	AuditHoldingNoBuy  = "holding-no-buy"   // a holding no completed buy created
	AuditHoldingQty    = "holding-qty"      // a holding's quantity ≠ bought − sold
	AuditHoldingOwner  = "holding-owner"    // a holding's account, symbol or price ≠ its buy's or sells'
	AuditForeignSell   = "foreign-sell"     // a sold-out holding's sells in another account or symbol than its buy
	AuditHoldingLost   = "holding-lost"     // shares bought and not sold, but the holding is gone
	AuditTwoBuys       = "two-buys"         // one holding credited by more than one completed buy
	AuditOversold      = "oversold"         // more shares sold from a holding than bought
	AuditVolume        = "volume"           // quote volume ≠ loaded volume + shares of orders since
	AuditQuoteNotBased = "quote-no-base"    // a quote not in the loaded data set (no baseline)
	AuditNegative      = "negative-balance" // an account overdrawn: a buy was not covered
	AuditKeyTwice      = "key-twice"        // an idempotency key stored twice, or two keys naming one order
	AuditKeyOrder      = "key-order"        // a buy's or sell's key naming no order, or another user's or kind's
)

// AuditRow is one violating row. Which fields are set depends on the kind; Expected and
// Actual are cents for balances and shares otherwise.
type AuditRow struct {
	Kind      string
	AccountID int64
	UserID    string
	OrderID   int64
	HoldingID int64
	Symbol    string
	Status    string // the order's status, or its type for orphan and unlinked orders
	Expected  int64
	Actual    int64
}

// AuditScope is how many rows the audit examined.
type AuditScope struct {
	Accounts, Orders, Holdings, Quotes int64
	// LoadedMaxOrderID is the last order id of the load: orders above it are the run's.
	LoadedMaxOrderID int64
	// Placed counts the orders above it: those placed since the load (or the last reset).
	Placed int64
}

// AuditReport is what Audit found.
type AuditReport struct {
	Scope  AuditScope
	Rows   []AuditRow       // at most the limit of each kind, in query order
	Counts map[string]int64 // every violation, by kind
}

// Collect scans one row of an audit query (the columns of AuditRow, in order) and keeps it if
// its kind has not reached limit. Backends call it for every row AuditQueries return.
func (r *AuditReport) Collect(scan func(dest ...any) error, limit int) error {
	var x AuditRow
	if err := scan(&x.Kind, &x.AccountID, &x.UserID, &x.OrderID, &x.HoldingID, &x.Symbol, &x.Status, &x.Expected, &x.Actual); err != nil {
		return err
	}
	if r.Counts == nil {
		r.Counts = map[string]int64{}
	}
	r.Counts[x.Kind]++
	if r.Counts[x.Kind] <= int64(limit) {
		r.Rows = append(r.Rows, x)
	}
	return nil
}

// AuditScopeQuery counts the rows an audit examines.
const AuditScopeQuery = `SELECT (SELECT count(*) FROM accounts), (SELECT count(*) FROM orders),
	(SELECT count(*) FROM holdings), (SELECT count(*) FROM quotes)`

// PlacedQuery counts the orders placed since the load: those above its last order id.
func PlacedQuery(loadedMaxOrderID int64) string {
	return "SELECT count(*) FROM orders WHERE orderid > " + strconv.FormatInt(loadedMaxOrderID, 10)
}

// done is the status of an order that moved money, shares and volume (closed or completed);
// cancelled is final but moved nothing.
const done = `status IN ('closed', 'completed')`

// AuditQueries are the checks, in SQL both backends run unchanged (one dialect: integer
// arithmetic, CASE, LEFT JOIN, a CTE, UNION ALL). Each returns the columns of AuditRow.
// loadedMaxOrderID separates the loaded orders, whose volume the loaded quotes already
// include, from the orders placed since; it is inlined (an integer), so the queries take no
// parameters and the two placeholder syntaxes do not matter.
//
// Why these catch an order applied twice: applying is the only thing that moves a balance, a
// quote's volume and a holding, and each order row records exactly one application of them.
// Applying one order twice therefore leaves the balance off by its total, the volume off by its
// quantity, and either two holdings for one buy (two-buys or holding-no-buy) or a holding sold
// below what the sells recorded (holding-qty, oversold).
func AuditQueries(loadedMaxOrderID int64) []string {
	maxID := strconv.FormatInt(loadedMaxOrderID, 10)
	return []string{auditOrdersSQL, auditBalancesSQL, auditHoldingsSQL, auditVolumesSQL(maxID), auditNegativeSQL, auditKeysSQL}
}

// Orders not final or not sound, found by one scan of orders with no joins (the user id
// is looked up for the violating rows only).
const auditOrdersSQL = `SELECT CASE WHEN o.status NOT IN ('closed', 'completed', 'cancelled') THEN '` + AuditOpenOrder + `'
			WHEN o.ordertype NOT IN ('buy', 'sell') THEN '` + AuditOrphanOrder + `'
			ELSE '` + AuditBuyUnlinked + `' END,
		o.accountid, COALESCE(a.userid, ''), o.orderid, COALESCE(o.holdingid, 0), o.symbol,
		CASE WHEN o.status NOT IN ('closed', 'completed', 'cancelled') THEN o.status ELSE o.ordertype END, 0, o.quantity
	FROM orders o LEFT JOIN accounts a ON a.accountid = o.accountid
	WHERE o.status NOT IN ('closed', 'completed', 'cancelled') OR o.ordertype NOT IN ('buy', 'sell')
		OR (o.ordertype = 'buy' AND o.` + done + ` AND o.holdingid IS NULL)
	ORDER BY o.orderid`

// Balances: the done orders' cash and the accounts grouped together by account id in
// one pass (a sort or hash of both tables, no per-row lookups). A group with no account
// row is orders of an account that does not exist.
const auditBalancesSQL = `SELECT CASE WHEN g.n = 0 THEN '` + AuditOrphanOrder + `' ELSE '` + AuditBalance + `' END,
		g.accountid, COALESCE(a.userid, ''), 0, 0, '', '', g.openbalance + g.delta, g.balance
	FROM (SELECT accountid, CAST(SUM(n) AS BIGINT) AS n, CAST(SUM(delta) AS BIGINT) AS delta,
			CAST(SUM(balance) AS BIGINT) AS balance, CAST(SUM(openbalance) AS BIGINT) AS openbalance
		FROM (SELECT accountid, 0 AS n, CASE ordertype WHEN 'sell' THEN price * quantity - fee
				WHEN 'buy' THEN -(price * quantity + fee) ELSE 0 END AS delta, 0 AS balance, 0 AS openbalance
			FROM orders WHERE ` + done + `
			UNION ALL
			SELECT accountid, 1, 0, balance, openbalance FROM accounts) u
		GROUP BY accountid) g
		LEFT JOIN accounts a ON a.accountid = g.accountid
	WHERE g.n <> 1 OR g.balance <> g.openbalance + g.delta
	ORDER BY g.accountid`

// Holdings: the done orders naming a holding (its buy and its sells) and the holdings
// grouped together by holding id in one pass. Each holding id yields at most one row:
// its most telling violation. Few aggregates, over integers where possible (k: 1 buy,
// 2 sell, 3 holding), since they run for every row: all rows of a group must agree on
// account and symbol (min = max), and the buy and the holding on the price.
const auditHoldingsSQL = `SELECT CASE WHEN l.buys > 1 THEN '` + AuditTwoBuys + `'
			WHEN l.sold > l.bought THEN '` + AuditOversold + `'
			WHEN l.holdings > 0 AND l.buys = 0 THEN '` + AuditHoldingNoBuy + `'
			WHEN l.holdings = 0 AND l.bought > l.sold THEN '` + AuditHoldingLost + `'
			WHEN l.holdings > 0 AND l.hqty <> l.bought - l.sold THEN '` + AuditHoldingQty + `'
			WHEN l.holdings = 0 THEN '` + AuditForeignSell + `'
			ELSE '` + AuditHoldingOwner + `' END,
		l.acct, COALESCE(a.userid, ''), COALESCE(l.buyid, 0), l.holdingid, l.sym, '',
		CASE WHEN l.buys > 1 THEN 1 WHEN l.sold > l.bought THEN l.bought ELSE l.bought - l.sold END,
		CASE WHEN l.buys > 1 THEN l.buys WHEN l.sold > l.bought THEN l.sold WHEN l.holdings > 0 THEN l.hqty ELSE 0 END
	FROM (SELECT holdingid,
			CAST(SUM(CASE WHEN k = 1 THEN 1 ELSE 0 END) AS BIGINT) AS buys,
			CAST(SUM(CASE WHEN k = 3 THEN 1 ELSE 0 END) AS BIGINT) AS holdings,
			MIN(CASE WHEN k = 1 THEN id END) AS buyid,
			CAST(SUM(CASE WHEN k = 1 THEN quantity ELSE 0 END) AS BIGINT) AS bought,
			CAST(SUM(CASE WHEN k = 2 THEN quantity ELSE 0 END) AS BIGINT) AS sold,
			CAST(SUM(CASE WHEN k = 3 THEN quantity ELSE 0 END) AS BIGINT) AS hqty,
			MIN(accountid) AS acct, MAX(accountid) AS acct2, MIN(symbol) AS sym, MAX(symbol) AS sym2,
			MIN(CASE WHEN k <> 2 THEN price END) AS price, MAX(CASE WHEN k <> 2 THEN price END) AS price2
		FROM (SELECT holdingid, CASE ordertype WHEN 'buy' THEN 1 ELSE 2 END AS k, orderid AS id, accountid, symbol, price, quantity
				FROM orders WHERE holdingid IS NOT NULL AND ` + done + ` AND ordertype IN ('buy', 'sell')
			UNION ALL
			SELECT holdingid, 3, 0, accountid, symbol, purchaseprice, quantity FROM holdings) u
		GROUP BY holdingid) l
		LEFT JOIN accounts a ON a.accountid = l.acct
	WHERE l.buys <> 1 OR l.holdings > 1 OR l.sold > l.bought
		OR (l.holdings = 0 AND l.bought > l.sold) OR (l.holdings > 0 AND l.hqty <> l.bought - l.sold)
		OR l.acct <> l.acct2 OR l.sym <> l.sym2 OR l.price <> l.price2
	ORDER BY l.holdingid`

// Volumes: the loaded volume plus the shares of the done orders placed since the load;
// those orders in a symbol with no quote are orphans.
func auditVolumesSQL(maxID string) string {
	return `SELECT CASE WHEN b.symbol IS NULL THEN '` + AuditQuoteNotBased + `' ELSE '` + AuditVolume + `' END,
			0, '', 0, 0, q.symbol, '', COALESCE(b.volume, 0) + COALESCE(m.shares, 0), q.volume
		FROM quotes q LEFT JOIN quotes_base b ON b.symbol = q.symbol
			LEFT JOIN (SELECT symbol, CAST(SUM(quantity) AS BIGINT) AS shares FROM orders
				WHERE orderid > ` + maxID + ` AND ` + done + ` GROUP BY symbol) m ON m.symbol = q.symbol
		WHERE b.symbol IS NULL OR q.volume <> b.volume + COALESCE(m.shares, 0)
		UNION ALL
		SELECT '` + AuditOrphanOrder + `', 0, '', 0, 0, m.symbol, 'symbol', 0, m.shares
		FROM (SELECT symbol, CAST(SUM(quantity) AS BIGINT) AS shares FROM orders
			WHERE orderid > ` + maxID + ` GROUP BY symbol) m
		WHERE NOT EXISTS (SELECT 1 FROM quotes q WHERE q.symbol = m.symbol)
		ORDER BY 6`
}

// Overdrawn accounts: every buy is checked against the balance, so a negative one means
// a buy was applied without the money (the funds check broke, or was bypassed).
const auditNegativeSQL = `SELECT '` + AuditNegative + `', accountid, userid, 0, 0, '', '', 0, balance
	FROM accounts WHERE balance < 0 ORDER BY accountid`

// Idempotency keys (requestkeys): no key placed two orders — each key is stored once
// (the primary key; a database whose table lost it would show here), no order is
// claimed by two keys, and a buy's or sell's key names an order of its kind and user.
// The key itself travels in the status column.
const auditKeysSQL = `SELECT '` + AuditKeyTwice + `', 0, MIN(userid), MIN(COALESCE(orderid, 0)), 0, '', idemkey, 1, count(*)
	FROM requestkeys GROUP BY idemkey HAVING count(*) > 1
	UNION ALL
	SELECT '` + AuditKeyTwice + `', 0, MIN(userid), orderid, 0, '', MIN(idemkey), 1, count(*)
	FROM requestkeys WHERE orderid IS NOT NULL GROUP BY orderid HAVING count(*) > 1
	UNION ALL
	SELECT '` + AuditKeyOrder + `', COALESCE(o.accountid, 0), k.userid, COALESCE(k.orderid, 0), 0, COALESCE(o.symbol, ''), k.idemkey, 0, 0
	FROM requestkeys k LEFT JOIN orders o ON o.orderid = k.orderid LEFT JOIN accounts a ON a.accountid = o.accountid
	WHERE k.kind IN ('buy', 'sell') AND (o.orderid IS NULL OR o.ordertype <> k.kind OR a.userid IS NULL OR a.userid <> k.userid)
	ORDER BY 7`
