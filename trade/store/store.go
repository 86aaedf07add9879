// Package store is the StockTrader storage contract and its driver registry.
//
// A Store offers data primitives only; the business rules live once, in the service
// (trade/business), which composes the primitives inside one transaction per business
// operation (Store.Update). Implementations register themselves like database/sql drivers:
//
//	import _ "github.com/tradebench/tradebench/trade/store/all" // or .../sqlite, .../postgres
//	st, err := store.Open(ctx, "sqlite:tradebench.db")          // or "postgres://…"
//
// Locking discipline, which every caller of Update keeps so concurrent operations cannot
// deadlock in a storm: lock the account first, then the order, then the quote, then the
// holding. Lock* reads take a row lock until the end of the transaction (SELECT … FOR UPDATE on
// PostgreSQL; SQLite serializes whole write transactions, so there they are plain reads).
package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/tradebench/tradebench/internal/dsn"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/dataset"
)

// Errors a primitive returns; the service maps them to domain errors.
var (
	ErrNotFound  = errors.New("store: no such row")
	ErrDuplicate = errors.New("store: duplicate key")
	ErrNotLoaded = errors.New("store: the database has not been loaded")
)

// LoadSpec sizes the data set Load generates (see package dataset).
type LoadSpec = dataset.Spec

// LoadInfo is the load marker a loaded database keeps: what was loaded and where the loaded
// rows end, so Reset can remove what runs added.
type LoadInfo struct {
	Spec         LoadSpec `json:"spec"`
	MaxAccountID int64    `json:"maxAccountID"`
	MaxHoldingID int64    `json:"maxHoldingID"`
	MaxOrderID   int64    `json:"maxOrderID"`
	// HoldingShares is the total quantity of the loaded holdings: Reset's check that no
	// loaded holding changed other than by a sell order.
	HoldingShares int64  `json:"holdingShares"`
	LoadedAt      string `json:"loadedAt"` // RFC 3339
}

// Reader holds the read primitives. On a Store each is one statement outside any
// transaction; on a Tx it reads inside the transaction without locking.
type Reader interface {
	// Account returns the account of userID (ErrNotFound).
	Account(ctx context.Context, userID string) (trade.Account, error)
	// Profile returns the profile of userID without the password (ErrNotFound).
	Profile(ctx context.Context, userID string) (trade.AccountProfile, error)
	// AccountWithProfile returns the account of userID and its profile (without the
	// password) in one statement: the account page shows both (ErrNotFound).
	AccountWithProfile(ctx context.Context, userID string) (trade.Account, trade.AccountProfile, error)
	// AccountSummary returns the account of userID and the summary of its holdings in one
	// statement: the home page shows both (ErrNotFound).
	AccountSummary(ctx context.Context, userID string) (trade.Account, trade.HoldingsSummary, error)
	// PasswordHash returns the stored password hash of userID (ErrNotFound).
	PasswordHash(ctx context.Context, userID string) (string, error)
	// Holdings returns an account's holdings, oldest first.
	Holdings(ctx context.Context, accountID int64) ([]trade.Holding, error)
	// Holding returns one holding by id (ErrNotFound).
	Holding(ctx context.Context, holdingID int64) (trade.Holding, error)
	// Orders returns an account's orders, most recent first, at most limit.
	Orders(ctx context.Context, accountID int64, limit int) ([]trade.Order, error)
	// ClosedOrders returns an account's closed orders (alerts not yet shown), oldest first.
	ClosedOrders(ctx context.Context, accountID int64) ([]trade.Order, error)
	// UserHoldings, UserOrders and UserClosedOrders are Holdings, Orders and ClosedOrders of
	// userID's account (ErrNotFound if there is no such user) in one statement where the user
	// has rows: the pages ask by user id, and a separate account lookup first would double
	// the statements of the home, portfolio and account pages.
	UserHoldings(ctx context.Context, userID string) ([]trade.Holding, error)
	// UserHoldingsWithQuotes is UserHoldings with, at the same index, the quote of each
	// holding's symbol (the zero Quote when there is none): the portfolio page's one statement.
	UserHoldingsWithQuotes(ctx context.Context, userID string) ([]trade.Holding, []trade.Quote, error)
	UserOrders(ctx context.Context, userID string, limit int) ([]trade.Order, error)
	UserClosedOrders(ctx context.Context, userID string) ([]trade.Order, error)
	// UserAccountPage is AccountWithProfile, UserOrders and UserClosedOrders in one statement:
	// the account page's account, profile, recent orders and alerts (the closed orders, not yet
	// marked completed), ErrNotFound for no such user.
	UserAccountPage(ctx context.Context, userID string, limit int) (trade.AccountPage, error)
	// Order returns one order by id (ErrNotFound).
	Order(ctx context.Context, orderID int64) (trade.Order, error)
	// Quote returns one quote (ErrNotFound).
	Quote(ctx context.Context, symbol string) (trade.Quote, error)
	// Quotes returns the quotes that exist among symbols, in no particular order.
	Quotes(ctx context.Context, symbols []string) ([]trade.Quote, error)
	// IndexQuotes returns the quotes of the market index: Trade 6.1's "s:1__" set (s:100…s:199).
	IndexQuotes(ctx context.Context) ([]trade.Quote, error)
	// RequestKey returns a keyed request stored by ClaimKey (ErrNotFound).
	RequestKey(ctx context.Context, key string) (trade.RequestKey, error)
}

// OfUser finishes a User* read made in one statement that selects through the user's account
// id: rows mean the user exists; no rows need a look at the account to tell "no such user"
// (ErrNotFound) from "nothing to show".
func OfUser[T any](ctx context.Context, r Reader, userID string, rows []T, err error) ([]T, error) {
	if err != nil || len(rows) > 0 {
		return rows, err
	}
	if _, err := r.Account(ctx, userID); err != nil {
		return nil, err
	}
	return []T{}, nil
}

// OfUserWithQuotes finishes a UserHoldingsWithQuotes read as OfUser finishes the others.
func OfUserWithQuotes(ctx context.Context, r Reader, userID string, hs []trade.Holding, qs []trade.Quote, err error) ([]trade.Holding,
	[]trade.Quote, error) {
	if hs, err = OfUser(ctx, r, userID, hs, err); err != nil {
		return nil, nil, err
	}
	if qs == nil {
		qs = []trade.Quote{}
	}
	return hs, qs, nil
}

// SortAccountPage puts an account page's orders in the order the contract lists them, as
// UserOrders and UserClosedOrders answer them: the recent orders most recent first, the closed
// ones oldest first (never nil).
func SortAccountPage(pg *trade.AccountPage) {
	slices.SortFunc(pg.Closed, func(a, b trade.Order) int { return cmp.Compare(a.OrderID, b.OrderID) })
	slices.SortFunc(pg.Orders, func(a, b trade.Order) int {
		if c := b.OpenDate.Compare(a.OpenDate); c != 0 {
			return c
		}
		return cmp.Compare(b.OrderID, a.OrderID)
	})
	if pg.Closed == nil {
		pg.Closed = []trade.Order{}
	}
}

// MarkedOrders finishes a UserClosedOrders statement that answers, besides the orders, one
// marker row with order id 0 when the user exists, so the common answer (no closed orders)
// needs no second statement: no marker is ErrNotFound. The orders come back oldest first.
func MarkedOrders(rows []trade.Order, err error) ([]trade.Order, error) {
	if err != nil {
		return nil, err
	}
	out := make([]trade.Order, 0, len(rows))
	found := false
	for _, o := range rows {
		if o.OrderID == 0 {
			found = true
			continue
		}
		out = append(out, o)
	}
	if !found {
		return nil, ErrNotFound
	}
	slices.SortFunc(out, func(a, b trade.Order) int { return cmp.Compare(a.OrderID, b.OrderID) })
	return out, nil
}

// IndexPrefix and IndexLen describe the market index symbols: Trade's SQL is
// symbol LIKE 's:1__', i.e. "s:1" followed by exactly two characters.
const (
	IndexPrefix = "s:1"
	IndexLen    = 5
)

// Tx is one read-write transaction.
type Tx interface {
	Reader

	// Lock* read a row and lock it until the transaction ends (ErrNotFound).
	LockAccount(ctx context.Context, userID string) (trade.Account, error)
	LockAccountByID(ctx context.Context, accountID int64) (trade.Account, error)
	LockOrder(ctx context.Context, orderID int64) (trade.Order, error)
	LockQuote(ctx context.Context, symbol string) (trade.Quote, error)
	LockHolding(ctx context.Context, holdingID int64) (trade.Holding, error)

	// CreateAccount inserts an account with its profile (p.Password ignored; passwordHash
	// stored) and returns its id; an existing user id is ErrDuplicate.
	CreateAccount(ctx context.Context, a trade.Account, p trade.AccountProfile, passwordHash string) (int64, error)
	// UpdateAccount writes balance, lastLogin, loginCount and logoutCount (ErrNotFound).
	UpdateAccount(ctx context.Context, a trade.Account) error
	// UpdateProfile writes full name, address, email, credit card and, if passwordHash is not
	// empty, the password hash (ErrNotFound).
	UpdateProfile(ctx context.Context, p trade.AccountProfile, passwordHash string) error

	CreateHolding(ctx context.Context, h trade.Holding) (int64, error)
	SetHoldingQuantity(ctx context.Context, holdingID, quantity int64) error
	DeleteHolding(ctx context.Context, holdingID int64) error

	CreateOrder(ctx context.Context, o trade.Order) (int64, error)
	// UpdateOrder writes status, completion date, holding id and price (ErrNotFound).
	UpdateOrder(ctx context.Context, o trade.Order) error
	// CompleteClosedOrders marks an account's closed orders completed and returns them as they
	// were (status closed), oldest first: each closed-order alert is handed out once.
	CompleteClosedOrders(ctx context.Context, accountID int64) ([]trade.Order, error)

	// UpdateQuote writes price, low, high, change and volume (ErrNotFound).
	UpdateQuote(ctx context.Context, q trade.Quote) error

	// ClaimKey stores a keyed request with the effect it had, in the transaction that had it:
	// ErrDuplicate if the key is stored already (by a committed transaction, or by a concurrent
	// one that then commits; the caller ends its transaction and looks the key up). The key is
	// unique in the database, so no two transactions both place an effect under it.
	ClaimKey(ctx context.Context, k trade.RequestKey) error
}

// Store is an open database.
type Store interface {
	Reader

	// Update runs fn in one read-write transaction and commits if fn returns nil. A
	// serialization failure or deadlock is retried a bounded number of times, so fn may run
	// more than once and must have no effects outside tx (compute random draws inside fn).
	// fn's error is returned unchanged.
	Update(ctx context.Context, fn func(tx Tx) error) error

	// Load replaces the whole database with a generated data set. progress, if not nil, is
	// called from one goroutine with rows done out of total.
	Load(ctx context.Context, spec LoadSpec, progress func(done, total int64)) error
	// Reset returns a loaded database to exactly its loaded state: it removes accounts,
	// holdings and orders added since, and restores balances, counters, profiles, holdings and
	// quotes (ErrNotLoaded if never loaded). Loaded holdings are restored from the sell orders
	// placed since the load; if the loaded holdings' count or total shares then still differ
	// from the load (a change made other than by the service), every holding is compared.
	Reset(ctx context.Context) error
	// Loaded returns the load marker (ErrNotLoaded if never loaded).
	Loaded(ctx context.Context) (LoadInfo, error)

	// OpenOrders returns open orders with ids above afterID, lowest id first, at most limit:
	// the durable order queue's relay (its outbox) pages through them.
	OpenOrders(ctx context.Context, afterID int64, limit int) ([]trade.Order, error)
	// OrdersAfter returns orders of any status with ids above afterID, lowest id first, at
	// most limit: a run's report pages through the orders it placed (completion latency).
	OrdersAfter(ctx context.Context, afterID int64, limit int) ([]trade.Order, error)

	// Kind is the driver name: "sqlite" or "postgres".
	Kind() string
	Close() error
}

// Versioner is a Store that can say which database server (or embedded engine) it runs on, for
// the results' disclosure: e.g. "SQLite 3.50.4", "PostgreSQL 15.14 (Debian 15.14-0+deb12u1) on x86_64…".
type Versioner interface {
	ServerVersion(ctx context.Context) (string, error)
}

// Driver opens a Store from a DSN.
type Driver interface {
	// Open opens dsn; the schema is created if missing.
	Open(ctx context.Context, dsn string) (Store, error)
}

var (
	mu      sync.RWMutex
	drivers = map[string]Driver{}
)

// Register makes a driver available by name ("sqlite", "postgres"). It panics on a duplicate.
func Register(name string, d Driver) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := drivers[name]; dup {
		panic("store: Register called twice for driver " + name)
	}
	drivers[name] = d
}

// Drivers lists the registered driver names.
func Drivers() []string {
	mu.RLock()
	defer mu.RUnlock()
	var names []string
	for n := range drivers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Open opens a Store for the DSN db (see package dsn) through its registered driver.
func Open(ctx context.Context, db string) (Store, error) {
	name, rest, err := dsn.Parse(db)
	if err != nil {
		return nil, err
	}
	mu.RLock()
	d := drivers[name]
	mu.RUnlock()
	if d == nil {
		return nil, fmt.Errorf("store: driver %q is not linked in (import _ \"github.com/tradebench/tradebench/trade/store/all\")", name)
	}
	return d.Open(ctx, rest)
}

// IsIndexSymbol reports whether a symbol belongs to the market index ("s:1__").
func IsIndexSymbol(s string) bool {
	return len(s) == IndexLen && strings.HasPrefix(s, IndexPrefix)
}
