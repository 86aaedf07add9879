// Package business is the business service of StockTrader running in the caller's process:
// it implements trade.Service and trade.OrderProcessor on a store.Store, and it is the one
// place the Trade 6.1 business rules are applied to data. Each business operation is one
// store transaction; nothing is written when an operation fails with a domain error.
//
// Orders: with no Options.Dispatch, orders are synchronous (Trade's "sync" mode): Buy and Sell
// place and complete the order in one transaction and return it closed. With a dispatcher
// (the async order modes), Buy and Sell record the order open, hand it to the dispatcher after
// the transaction commits, and an order processor completes it later through CompleteOrder.
// Money moves when an order completes, at the price the order was placed at, so an order is
// applied whole or not at all and an open order can be cancelled without a refund.
package business

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"
	"golang.org/x/sync/singleflight"

	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/store"
)

// OrderDispatcher hands a placed (open) order to an order processor, which later calls
// CompleteOrder. It is the seam for the asynchronous order modes.
type OrderDispatcher interface {
	Dispatch(ctx context.Context, o trade.Order) error
}

// OrderObserver is told of orders as they are placed and as they reach a final state (completed
// or cancelled): once each, whichever mode and transport. A synchronous order is placed final,
// so it is reported to both at once. Its methods must be quick: they run in the caller's request.
type OrderObserver interface {
	Placed(o trade.Order)
	Finished(o trade.Order)
}

// Options configure a Service. The zero value is valid: no market summary cache, the default
// orders cap and hash cost, synchronous orders, a random seed. DefaultOptions has the defaults
// a server should use.
type Options struct {
	// MarketSummaryTTL is how long a computed market summary is served; 0 computes it on every
	// call. Concurrent misses compute it once.
	MarketSummaryTTL time.Duration
	// HashCost is the bcrypt cost of new and changed passwords (0 = dataset.DefaultHashCost).
	HashCost int
	// Dispatch, if set, makes orders asynchronous (see the package comment).
	Dispatch OrderDispatcher
	// Observe, if set, is told of every order placed and every order completed or cancelled,
	// after its transaction commits (a server's order metrics).
	Observe OrderObserver
	// Seed seeds the price moves (0 = random).
	Seed uint64
	// LoginMaxFailures is how many wrong passwords one user id may get from one client
	// (trade.ClientOf) within trade.LoginWindow; further logins of it from that client are
	// refused (trade.CodeTooManyRequests) until the window has passed, even with the right
	// password, and a client with ten times as many across user ids is refused for all of
	// them. Other clients, the account's owner among them, are not (0 = no limit).
	LoginMaxFailures int
	// Clock is the throttle's time (nil = time.Now); tests move it.
	Clock func() time.Time
	// OnCancel, if set, hears why an order processor cancelled an order (e.g. "insufficient
	// funds: …" for an async buy the balance no longer covers). It may be called more than
	// once for one order if its transaction is retried.
	OnCancel func(o trade.Order, reason string)
	// Quotes, if set, hears every quote an executed order moved, after the order's
	// transaction committed (the live quote streamer, package stream).
	Quotes QuotePublisher
}

// QuotePublisher is told of every quote an executed buy or sell moved. It must not block: it is
// called on the order's path.
type QuotePublisher interface {
	PublishQuote(q trade.Quote)
}

// DefaultOptions: market summary cached for 60 s, synchronous orders, the rest as SetDefaults
// fills it.
func DefaultOptions() Options {
	o := Options{MarketSummaryTTL: 60 * time.Second}
	o.SetDefaults()
	return o
}

// SetDefaults fills the zero options that have a default: the one place they are applied.
func (o *Options) SetDefaults() {
	if o.HashCost == 0 {
		o.HashCost = dataset.DefaultHashCost
	}
}

// Validate reports a setting the service cannot run with: a *setting.Error names the Options
// field. It checks o as SetDefaults leaves it, so a zero field (its default) is never refused.
func (o Options) Validate() error {
	o.SetDefaults()
	switch {
	case o.MarketSummaryTTL < 0:
		return setting.Errorf("MarketSummaryTTL", "must be 0 (no cache) or positive, got %v", o.MarketSummaryTTL)
	case o.HashCost < bcrypt.MinCost || o.HashCost > bcrypt.MaxCost:
		return setting.Errorf("HashCost", "must be a bcrypt cost between %d and %d, got %d", bcrypt.MinCost, bcrypt.MaxCost, o.HashCost)
	case o.LoginMaxFailures < 0:
		return setting.Errorf("LoginMaxFailures", "must be 0 (no limit) or positive, got %d", o.LoginMaxFailures)
	}
	return nil
}

// Service implements trade.Service and trade.OrderProcessor.
type Service struct {
	st   store.Store
	opts Options

	rmu sync.Mutex
	rng *rand.Rand

	logins *loginThrottle
	// dummyHash is compared against for an unknown user id, so a login answers as slowly
	// for one as for a wrong password: the timing does not list the user ids either.
	dummyHash []byte

	sf    singleflight.Group
	msMu  sync.Mutex
	ms    trade.MarketSummary
	msExp time.Time
}

var (
	_ trade.Service        = (*Service)(nil)
	_ trade.OrderProcessor = (*Service)(nil)
)

// New returns a service on st.
func New(st store.Store, opts Options) *Service {
	opts.SetDefaults()
	seed := opts.Seed
	if seed == 0 {
		seed = rand.Uint64()
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	dummy, _ := bcrypt.GenerateFromPassword([]byte("not a password"), opts.HashCost)
	return &Service{st: st, opts: opts, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		logins: newLoginThrottle(opts.LoginMaxFailures, opts.Clock), dummyHash: dummy}
}

// Store returns the store the service runs on (for the audit and the config page).
func (s *Service) Store() store.Store { return s.st }

// Options returns the effective options.
func (s *Service) Options() Options { return s.opts }

// now is the time recorded on rows, truncated to what both databases store exactly.
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

func (s *Service) priceChange() int64 {
	s.rmu.Lock()
	defer s.rmu.Unlock()
	return trade.PriceChangePercent(s.rng)
}

// missing turns the store's not-found into a domain error.
func missing(err error, format string, args ...any) error {
	if errors.Is(err, store.ErrNotFound) {
		return trade.Errorf(trade.CodeNotFound, format, args...)
	}
	return err
}

func checkUser(userID string) error {
	if err := trade.ValidateField("user id", userID, true); err != nil {
		return err
	}
	if len(userID) > trade.MaxUserIDLen {
		return trade.Errorf(trade.CodeInvalid, "user id is longer than %d characters", trade.MaxUserIDLen)
	}
	return nil
}

func (s *Service) account(ctx context.Context, r store.Reader, userID string) (trade.Account, error) {
	if err := checkUser(userID); err != nil {
		return trade.Account{}, err
	}
	a, err := r.Account(ctx, userID)
	return a, missing(err, "no user %q", userID)
}

// Login checks the password and counts the login. An unknown user id and a wrong password
// get the same error (trade.LoginRefused), after the same bcrypt work; after
// Options.LoginMaxFailures of them for one user id from one client (trade.ClientOf ctx) within
// trade.LoginWindow, that client's logins of that id are refused until the window has passed,
// and after ten times as many from one client across user ids, all its logins (loginThrottle).
func (s *Service) Login(ctx context.Context, userID, password string) (trade.Account, error) {
	if err := checkUser(userID); err != nil {
		return trade.Account{}, err
	}
	if err := trade.ValidateField("password", password, true); err != nil {
		return trade.Account{}, err
	}
	client := trade.ClientOf(ctx)
	if wait, perClient := s.logins.retryAfter(userID, client); wait > 0 {
		wait = wait.Round(time.Second) + time.Second // whole seconds, never early
		what := "for this user id"
		if perClient {
			what = "from this client"
		}
		return trade.Account{}, &trade.Error{Code: trade.CodeTooManyRequests, RetryAfter: wait,
			Message: fmt.Sprintf("too many failed logins %s: try again in %v", what, wait)}
	}
	hash, err := s.st.PasswordHash(ctx, userID)
	known := err == nil
	if errors.Is(err, store.ErrNotFound) {
		hash, err = string(s.dummyHash), nil
	}
	if err != nil {
		return trade.Account{}, err
	}
	// Checked outside the transaction: bcrypt is deliberately slow and must not hold locks.
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) != nil || !known {
		s.logins.fail(userID, client)
		return trade.Account{}, trade.Errorf(trade.CodeUnauthorized, trade.LoginRefused)
	}
	var a trade.Account
	err = s.st.Update(ctx, func(tx store.Tx) error {
		var err error
		if a, err = tx.LockAccount(ctx, userID); err != nil {
			return missing(err, trade.LoginRefused)
		}
		a.LoginCount++
		a.LastLogin = now()
		return tx.UpdateAccount(ctx, a)
	})
	return a, err
}

// Logout counts the logout.
func (s *Service) Logout(ctx context.Context, userID string) error {
	if err := checkUser(userID); err != nil {
		return err
	}
	return s.st.Update(ctx, func(tx store.Tx) error {
		a, err := tx.LockAccount(ctx, userID)
		if err != nil {
			return missing(err, "no user %q", userID)
		}
		a.LogoutCount++
		return tx.UpdateAccount(ctx, a)
	})
}

// Register creates an account whose balance is the opening balance.
func (s *Service) Register(ctx context.Context, r trade.RegisterRequest) (trade.Account, error) {
	return s.register(ctx, r, false)
}

// RegisterAndLogin is Register and then Login with the same password
// (trade.RegisterLoginer): the account is created with its first login counted, and the
// password is hashed once and not verified against the hash just made. The failed-login
// throttle is not consulted: it guards against guessing a password, and the registrant has
// just chosen this one (a taken user id is refused as by Register).
func (s *Service) RegisterAndLogin(ctx context.Context, r trade.RegisterRequest) (trade.Account, error) {
	return s.register(ctx, r, true)
}

// register creates the account, logged in once if login.
func (s *Service) register(ctx context.Context, r trade.RegisterRequest, login bool) (trade.Account, error) {
	if err := trade.ValidateRegister(r); err != nil {
		return trade.Account{}, err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(r.Password), s.opts.HashCost)
	if err != nil {
		// bcrypt refuses passwords over 72 bytes.
		return trade.Account{}, trade.Errorf(trade.CodeInvalid, "password cannot be used: %v", err)
	}
	t := now()
	a := trade.Account{UserID: r.UserID, Balance: r.OpenBalance, OpenBalance: r.OpenBalance, CreationDate: t, LastLogin: t}
	if login {
		a.LoginCount = 1
	}
	p := trade.AccountProfile{UserID: r.UserID, FullName: r.FullName, Address: r.Address, Email: r.Email, CreditCard: r.CreditCard}
	return once(ctx, s, trade.KindRegister, r.UserID, func(ctx context.Context, _ trade.RequestKey) (trade.Account, error) {
		return s.GetAccountData(ctx, r.UserID)
	}, func(claim claimFunc) (trade.Account, error) {
		err := s.st.Update(ctx, func(tx store.Tx) error {
			id, err := tx.CreateAccount(ctx, a, p, string(hash))
			if errors.Is(err, store.ErrDuplicate) {
				return trade.Errorf(trade.CodeConflict, "user id %q is already taken", r.UserID)
			}
			if err != nil {
				return err
			}
			a.AccountID = id
			return claim(tx, 0)
		})
		if err != nil {
			return trade.Account{}, err
		}
		return a, nil
	})
}

// GetAccountData returns the account of userID.
func (s *Service) GetAccountData(ctx context.Context, userID string) (trade.Account, error) {
	return s.account(ctx, s.st, userID)
}

// GetAccountProfileData returns the profile of userID (never the password).
func (s *Service) GetAccountProfileData(ctx context.Context, userID string) (trade.AccountProfile, error) {
	if err := checkUser(userID); err != nil {
		return trade.AccountProfile{}, err
	}
	p, err := s.st.Profile(ctx, userID)
	return p, missing(err, "no user %q", userID)
}

// GetAccountWithProfile returns the account of userID and its profile (never the password) in
// one statement (trade.AccountWithProfileGetter).
func (s *Service) GetAccountWithProfile(ctx context.Context, userID string) (trade.Account, trade.AccountProfile, error) {
	if err := checkUser(userID); err != nil {
		return trade.Account{}, trade.AccountProfile{}, err
	}
	a, p, err := s.st.AccountWithProfile(ctx, userID)
	return a, p, missing(err, "no user %q", userID)
}

// GetAccountSummary returns the account of userID and the summary of its holdings in one
// statement (trade.AccountSummaryGetter).
func (s *Service) GetAccountSummary(ctx context.Context, userID string) (trade.Account, trade.HoldingsSummary, error) {
	if err := checkUser(userID); err != nil {
		return trade.Account{}, trade.HoldingsSummary{}, err
	}
	a, sum, err := s.st.AccountSummary(ctx, userID)
	return a, sum, missing(err, "no user %q", userID)
}

// UpdateAccountProfile changes the profile fields and, if p.Password is set, the password. A
// password change also counts a logout: web sessions are stamped with the logout count, so
// every session of the user started before the change ends (the web tier that made the change
// re-stamps its own).
func (s *Service) UpdateAccountProfile(ctx context.Context, p trade.AccountProfile) (trade.AccountProfile, error) {
	if err := checkUser(p.UserID); err != nil {
		return trade.AccountProfile{}, err
	}
	if err := trade.ValidateProfile(p); err != nil {
		return trade.AccountProfile{}, err
	}
	var hash string
	if p.Password != "" {
		h, err := bcrypt.GenerateFromPassword([]byte(p.Password), s.opts.HashCost)
		if err != nil {
			return trade.AccountProfile{}, trade.Errorf(trade.CodeInvalid, "password cannot be used: %v", err)
		}
		hash = string(h)
	}
	return once(ctx, s, trade.KindProfile, p.UserID, func(ctx context.Context, _ trade.RequestKey) (trade.AccountProfile, error) {
		return s.GetAccountProfileData(ctx, p.UserID)
	}, func(claim claimFunc) (trade.AccountProfile, error) {
		return s.updateProfile(ctx, p, hash, claim)
	})
}

// updateProfile writes p (and hash, if set) in one transaction that claim joins.
func (s *Service) updateProfile(ctx context.Context, p trade.AccountProfile, hash string, claim claimFunc) (trade.AccountProfile, error) {
	var out trade.AccountProfile
	err := s.st.Update(ctx, func(tx store.Tx) error {
		if hash != "" {
			a, err := tx.LockAccount(ctx, p.UserID)
			if err != nil {
				return missing(err, "no user %q", p.UserID)
			}
			a.LogoutCount++
			if err := tx.UpdateAccount(ctx, a); err != nil {
				return err
			}
		}
		if err := tx.UpdateProfile(ctx, p, hash); err != nil {
			return missing(err, "no user %q", p.UserID)
		}
		var err error
		if out, err = tx.Profile(ctx, p.UserID); err != nil {
			return err
		}
		return claim(tx, 0)
	})
	return out, err
}

// GetHoldings returns the holdings of userID, oldest first.
func (s *Service) GetHoldings(ctx context.Context, userID string) ([]trade.Holding, error) {
	if err := checkUser(userID); err != nil {
		return nil, err
	}
	hs, err := s.st.UserHoldings(ctx, userID)
	if err != nil {
		return nil, missing(err, "no user %q", userID)
	}
	return hs, nil
}

// GetHoldingsWithQuotes returns the holdings of userID, oldest first, each with its symbol's
// quote at the same index (trade.HoldingsWithQuotesGetter), in one statement.
func (s *Service) GetHoldingsWithQuotes(ctx context.Context, userID string) ([]trade.Holding, []trade.Quote, error) {
	if err := checkUser(userID); err != nil {
		return nil, nil, err
	}
	hs, qs, err := s.st.UserHoldingsWithQuotes(ctx, userID)
	if err != nil {
		return nil, nil, missing(err, "no user %q", userID)
	}
	return hs, qs, nil
}

// GetHolding returns one holding of userID; another user's holding is CodeNotFound, the same
// answer as a holding that does not exist (ownHolding).
func (s *Service) GetHolding(ctx context.Context, userID string, holdingID int64) (trade.Holding, error) {
	a, err := s.account(ctx, s.st, userID)
	if err != nil {
		return trade.Holding{}, err
	}
	return s.ownHolding(ctx, s.st, a, holdingID)
}

func (s *Service) ownHolding(ctx context.Context, r store.Reader, a trade.Account, holdingID int64) (trade.Holding, error) {
	if holdingID <= 0 {
		return trade.Holding{}, trade.Errorf(trade.CodeInvalid, "holding id must be a positive number, got %d", holdingID)
	}
	h, err := r.Holding(ctx, holdingID)
	if err == nil && h.AccountID != a.AccountID {
		// answered as if it did not exist: "forbidden" told a stranger which ids are someone's
		err = store.ErrNotFound
	}
	if err != nil {
		return trade.Holding{}, missing(err, "no holding %d", holdingID)
	}
	return h, nil
}

// GetOrders returns the most recent orders first, at most limit (trade.DefaultOrdersLimit if
// limit <= 0, never more than trade.MaxOrdersLimit).
func (s *Service) GetOrders(ctx context.Context, userID string, limit int) ([]trade.Order, error) {
	if err := checkUser(userID); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = trade.DefaultOrdersLimit
	}
	os, err := s.st.UserOrders(ctx, userID, min(limit, trade.MaxOrdersLimit))
	if err != nil {
		return nil, missing(err, "no user %q", userID)
	}
	return os, nil
}

// GetClosedOrders returns the orders closed since last shown (status closed) and marks them
// completed, so each alert is shown once even to concurrent callers.
func (s *Service) GetClosedOrders(ctx context.Context, userID string) ([]trade.Order, error) {
	if err := checkUser(userID); err != nil {
		return nil, err
	}
	// The common case, nothing closed, is indexed reads and no write transaction.
	pending, err := s.st.UserClosedOrders(ctx, userID)
	if err != nil {
		return nil, missing(err, "no user %q", userID)
	}
	if len(pending) == 0 {
		return []trade.Order{}, nil
	}
	return s.completeClosed(ctx, pending[0].AccountID)
}

// completeClosed marks the account's closed orders completed and returns them as they were
// (status closed), oldest first.
func (s *Service) completeClosed(ctx context.Context, accountID int64) ([]trade.Order, error) {
	var out []trade.Order
	err := s.st.Update(ctx, func(tx store.Tx) error {
		var err error
		out, err = tx.CompleteClosedOrders(ctx, accountID)
		return err
	})
	if out == nil && err == nil {
		out = []trade.Order{}
	}
	return out, err
}

// GetOrdersWithClosed is GetClosedOrders and then GetOrders (trade.OrdersWithClosedGetter): the
// orders of GetAccountPage.
func (s *Service) GetOrdersWithClosed(ctx context.Context, userID string, limit int) ([]trade.Order, []trade.Order, error) {
	pg, err := s.GetAccountPage(ctx, userID, limit)
	if err != nil {
		return nil, nil, err
	}
	return pg.Orders, pg.Closed, nil
}

// GetAccountPage is GetAccountWithProfile, GetClosedOrders and then GetOrders
// (trade.AccountPageGetter): one statement reads them all, and only when something was closed
// does a write transaction complete it; the listed orders then show those completed, as a read
// after the write would.
func (s *Service) GetAccountPage(ctx context.Context, userID string, limit int) (trade.AccountPage, error) {
	if err := checkUser(userID); err != nil {
		return trade.AccountPage{}, err
	}
	if limit <= 0 {
		limit = trade.DefaultOrdersLimit
	}
	pg, err := s.st.UserAccountPage(ctx, userID, min(limit, trade.MaxOrdersLimit))
	if err != nil {
		return trade.AccountPage{}, missing(err, "no user %q", userID)
	}
	pending := pg.Closed
	if len(pending) == 0 {
		return pg, nil
	}
	closed, err := s.completeClosed(ctx, pg.Account.AccountID)
	if err != nil {
		return trade.AccountPage{}, err
	}
	pg.Closed = closed
	// every order closed when read, or completed by the write, is completed now (by this
	// call or a concurrent one: a closed order only ever becomes completed)
	done := make(map[int64]bool, len(pending)+len(closed))
	for _, o := range pending {
		done[o.OrderID] = true
	}
	for _, o := range closed {
		done[o.OrderID] = true
	}
	for i := range pg.Orders {
		if done[pg.Orders[i].OrderID] {
			pg.Orders[i].Status = trade.StatusCompleted
		}
	}
	return pg, nil
}

// GetQuote returns the quote of symbol.
func (s *Service) GetQuote(ctx context.Context, symbol string) (trade.Quote, error) {
	if err := trade.ValidateSymbol(symbol); err != nil {
		return trade.Quote{}, err
	}
	q, err := s.st.Quote(ctx, symbol)
	return q, missing(err, "no quote for symbol %q", symbol)
}

// GetQuotes returns the quotes of symbols in the order asked; an unknown symbol is
// CodeNotFound naming it.
func (s *Service) GetQuotes(ctx context.Context, symbols []string) ([]trade.Quote, error) {
	if len(symbols) > trade.MaxSymbols {
		return nil, trade.Errorf(trade.CodeInvalid, "at most %d symbols at once, got %d", trade.MaxSymbols, len(symbols))
	}
	for _, sym := range symbols {
		if err := trade.ValidateSymbol(sym); err != nil {
			return nil, err
		}
	}
	found, err := s.st.Quotes(ctx, symbols)
	if err != nil {
		return nil, err
	}
	by := make(map[string]trade.Quote, len(found))
	for _, q := range found {
		by[q.Symbol] = q
	}
	out := make([]trade.Quote, 0, len(symbols))
	for _, sym := range symbols {
		q, ok := by[sym]
		if !ok {
			return nil, trade.Errorf(trade.CodeNotFound, "no quote for symbol %q", sym)
		}
		out = append(out, q)
	}
	return out, nil
}

// GetMarketSummary returns the market summary, cached for Options.MarketSummaryTTL.
//
// As Trade 6.1 (TradeDirect/MarketSummaryDataBean) computes it, over the index quotes
// s:100…s:199 (SQL: symbol LIKE 's:1__'): TSIA is the average price, openTSIA the average
// opening price, volume the sum of volumes, and the top 5 gainers and losers are the first
// five by change (price - open) descending and ascending (ties by symbol). A data set with
// fewer than 101 quotes has no index quotes, and the summary is all zero, as in Trade.
func (s *Service) GetMarketSummary(ctx context.Context) (trade.MarketSummary, error) {
	ttl := s.opts.MarketSummaryTTL
	if ttl <= 0 {
		return s.marketSummary(ctx)
	}
	s.msMu.Lock()
	if time.Now().Before(s.msExp) {
		m := s.ms
		s.msMu.Unlock()
		return cloneSummary(m), nil
	}
	s.msMu.Unlock()
	// One computation for all concurrent misses, detached from any one caller's cancellation.
	ch := s.sf.DoChan("ms", func() (any, error) {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		m, err := s.marketSummary(cctx)
		if err == nil {
			s.msMu.Lock()
			s.ms, s.msExp = m, time.Now().Add(ttl)
			s.msMu.Unlock()
		}
		return m, err
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			return trade.MarketSummary{}, r.Err
		}
		return cloneSummary(r.Val.(trade.MarketSummary)), nil
	case <-ctx.Done():
		return trade.MarketSummary{}, ctx.Err()
	}
}

func cloneSummary(m trade.MarketSummary) trade.MarketSummary {
	m.TopGainers, m.TopLosers = slices.Clone(m.TopGainers), slices.Clone(m.TopLosers)
	return m
}

func (s *Service) marketSummary(ctx context.Context) (trade.MarketSummary, error) {
	qs, err := s.st.IndexQuotes(ctx)
	if err != nil {
		return trade.MarketSummary{}, err
	}
	return Summarize(qs, now()), nil
}

// Summarize computes a market summary from the index quotes (see GetMarketSummary).
func Summarize(qs []trade.Quote, at time.Time) trade.MarketSummary {
	m := trade.MarketSummary{Date: at, TopGainers: []trade.Quote{}, TopLosers: []trade.Quote{}}
	if len(qs) == 0 {
		return m
	}
	var price, open trade.Money
	for _, q := range qs {
		price += q.Price
		open += q.Open
		m.Volume += q.Volume
	}
	n := trade.Money(len(qs))
	m.TSIA, m.OpenTSIA = (price+n/2)/n, (open+n/2)/n // prices are positive: rounds half up
	byChange := slices.Clone(qs)
	sort.Slice(byChange, func(i, j int) bool {
		if byChange[i].Change != byChange[j].Change {
			return byChange[i].Change > byChange[j].Change
		}
		return byChange[i].Symbol < byChange[j].Symbol
	})
	k := min(5, len(byChange))
	m.TopGainers = slices.Clone(byChange[:k])
	sort.SliceStable(byChange, func(i, j int) bool { return byChange[i].Change < byChange[j].Change })
	m.TopLosers = slices.Clone(byChange[:k])
	return m
}

// Buy places a buy order; see the package comment for sync and async modes.
func (s *Service) Buy(ctx context.Context, userID, symbol string, quantity int64) (trade.Order, error) {
	if err := checkUser(userID); err != nil {
		return trade.Order{}, err
	}
	if err := trade.ValidateSymbol(symbol); err != nil {
		return trade.Order{}, err
	}
	if err := trade.ValidateQuantity(quantity, false); err != nil {
		return trade.Order{}, err
	}
	return once(ctx, s, trade.KindBuy, userID, s.keyedOrder, func(claim claimFunc) (trade.Order, error) {
		return s.buy(ctx, userID, symbol, quantity, claim)
	})
}

// keyedOrder is the order a keyed buy or sell placed, as it is now.
func (s *Service) keyedOrder(ctx context.Context, k trade.RequestKey) (trade.Order, error) {
	return s.st.Order(ctx, k.OrderID)
}

// buy places the order in one transaction that claim joins.
func (s *Service) buy(ctx context.Context, userID, symbol string, quantity int64, claim claimFunc) (trade.Order, error) {
	var o trade.Order
	var q trade.Quote
	err := s.st.Update(ctx, func(tx store.Tx) error {
		a, err := s.lockOrRead(ctx, tx, userID)
		if err != nil {
			return err
		}
		if q, err = s.quoteOrLock(ctx, tx, symbol); err != nil {
			return err
		}
		o = trade.Order{AccountID: a.AccountID, Symbol: symbol, Type: trade.Buy, Status: trade.StatusOpen,
			OpenDate: now(), Quantity: quantity, Price: q.Price, Fee: trade.OrderFee}
		// In sync mode the account row is locked, so this check and the debit are one step
		// and concurrent buys cannot overdraw. An async order is checked again, under the
		// lock, when it completes (apply), and cancelled there if the money has gone.
		if err := checkFunds(a, o); err != nil {
			return err
		}
		if err := s.place(ctx, tx, &o, &a, &q); err != nil {
			return err
		}
		return claim(tx, o.OrderID)
	})
	if err != nil {
		return trade.Order{}, err
	}
	s.moved(o, q)
	s.placed(o)
	return o, s.dispatch(ctx, o)
}

// Sell places a sell order for a holding of userID; quantity 0 sells the whole holding.
func (s *Service) Sell(ctx context.Context, userID string, holdingID int64, quantity int64) (trade.Order, error) {
	if err := checkUser(userID); err != nil {
		return trade.Order{}, err
	}
	if err := trade.ValidateQuantity(quantity, true); err != nil {
		return trade.Order{}, err
	}
	return once(ctx, s, trade.KindSell, userID, s.keyedOrder, func(claim claimFunc) (trade.Order, error) {
		return s.sell(ctx, userID, holdingID, quantity, claim)
	})
}

// sell places the order in one transaction that claim joins.
func (s *Service) sell(ctx context.Context, userID string, holdingID int64, quantity int64, claim claimFunc) (trade.Order, error) {
	var o trade.Order
	var q trade.Quote
	err := s.st.Update(ctx, func(tx store.Tx) error {
		a, err := s.lockOrRead(ctx, tx, userID)
		if err != nil {
			return err
		}
		// The account lock keeps the account's holdings stable from here on in sync mode.
		h, err := s.ownHolding(ctx, tx, a, holdingID)
		if err != nil {
			return err
		}
		qty := quantity
		if qty == 0 {
			qty = h.Quantity
		}
		if qty > h.Quantity {
			return trade.Errorf(trade.CodeInvalid, "cannot sell %d shares of holding %d: it has %d", qty, holdingID, h.Quantity)
		}
		if q, err = s.quoteOrLock(ctx, tx, h.Symbol); err != nil {
			return err
		}
		o = trade.Order{AccountID: a.AccountID, HoldingID: h.HoldingID, Symbol: h.Symbol, Type: trade.Sell,
			Status: trade.StatusOpen, OpenDate: now(), Quantity: qty, Price: q.Price, Fee: trade.OrderFee}
		// As for Buy: one step with the debit under the account lock in sync mode, checked
		// again at completion (apply) in the async modes.
		if err := checkFunds(a, o); err != nil {
			return err
		}
		if err := s.place(ctx, tx, &o, &a, &q); err != nil {
			return err
		}
		return claim(tx, o.OrderID)
	})
	if err != nil {
		return trade.Order{}, err
	}
	s.moved(o, q)
	s.placed(o)
	return o, s.dispatch(ctx, o)
}

func (s *Service) sync() bool { return s.opts.Dispatch == nil }

// moved publishes q if order o was executed (closed) and so moved it; an open order (async
// modes) moves its quote when it completes, and a cancelled sell moves nothing.
func (s *Service) moved(o trade.Order, q trade.Quote) {
	if s.opts.Quotes != nil && o.Status == trade.StatusClosed {
		s.opts.Quotes.PublishQuote(q)
	}
}

// checkFunds refuses an order that would leave the balance negative: a buy whose cost plus
// fee exceeds the balance, and a sell whose proceeds are below the fee by more than the
// balance (1 share at $1.01 sold for $24.95 of fee took a $30 account to −$19.99).
// (trade.MaxQuantity and the price rules keep the cost far from overflowing Money.)
func checkFunds(a trade.Account, o trade.Order) error {
	switch o.Type {
	case trade.Buy:
		if cost := o.Total(); cost > a.Balance {
			return trade.Errorf(trade.CodeInsufficientFunds, "insufficient funds: balance $%s, order costs $%s", a.Balance, cost)
		}
	case trade.Sell:
		if net := o.Total(); a.Balance+net < 0 {
			return trade.Errorf(trade.CodeInsufficientFunds, "insufficient funds: balance $%s, the sale's proceeds $%s do not cover the $%s fee",
				a.Balance, o.Price.Times(o.Quantity), o.Fee)
		}
	}
	return nil
}

// lockOrRead: a sync order changes the account now, so it locks it; placing an async order
// only needs to know the account.
func (s *Service) lockOrRead(ctx context.Context, tx store.Tx, userID string) (trade.Account, error) {
	if !s.sync() {
		return s.account(ctx, tx, userID)
	}
	a, err := tx.LockAccount(ctx, userID)
	return a, missing(err, "no user %q", userID)
}

func (s *Service) quoteOrLock(ctx context.Context, tx store.Tx, symbol string) (trade.Quote, error) {
	var q trade.Quote
	var err error
	if s.sync() {
		q, err = tx.LockQuote(ctx, symbol)
	} else {
		q, err = tx.Quote(ctx, symbol)
	}
	return q, missing(err, "no quote for symbol %q", symbol)
}

// place records a new order: completed at once in sync mode, open otherwise.
func (s *Service) place(ctx context.Context, tx store.Tx, o *trade.Order, a *trade.Account, q *trade.Quote) error {
	if s.sync() {
		if err := s.apply(ctx, tx, o, a, q); err != nil {
			return err
		}
	}
	id, err := tx.CreateOrder(ctx, *o)
	o.OrderID = id
	return err
}

// placed tells the observer of a committed new order (and, in sync mode, that it is final).
func (s *Service) placed(o trade.Order) {
	if ob := s.opts.Observe; ob != nil {
		ob.Placed(o)
		if o.Status.Final() {
			ob.Finished(o)
		}
	}
}

func (s *Service) dispatch(ctx context.Context, o trade.Order) error {
	if s.sync() {
		return nil
	}
	if err := s.opts.Dispatch.Dispatch(ctx, o); err != nil {
		return fmt.Errorf("order %d was placed but could not be handed to the order processor: %w", o.OrderID, err)
	}
	return nil
}

// CompleteOrder completes an open order (the order processor's step). Completing a final
// order is a no-op that returns it, so a redelivered message cannot apply an order twice.
func (s *Service) CompleteOrder(ctx context.Context, orderID int64) (trade.Order, error) {
	var out trade.Order
	var q trade.Quote
	var applied bool // by this call: a redelivery of a final order is not reported again
	err := s.st.Update(ctx, func(tx store.Tx) error {
		applied = false // a retried transaction starts over
		o, err := tx.Order(ctx, orderID)
		if err != nil {
			return missing(err, "no order %d", orderID)
		}
		if o.Status.Final() {
			out = o
			return nil
		}
		// Lock order: account, order, quote, holding (see package store).
		a, err := tx.LockAccountByID(ctx, o.AccountID)
		if err != nil {
			return err
		}
		if o, err = tx.LockOrder(ctx, orderID); err != nil {
			return err
		}
		if o.Status.Final() { // completed meanwhile by another processor
			out = o
			return nil
		}
		if q, err = tx.LockQuote(ctx, o.Symbol); err != nil {
			return err
		}
		if err := s.apply(ctx, tx, &o, &a, &q); err != nil {
			return err
		}
		out, applied = o, true
		return tx.UpdateOrder(ctx, o)
	})
	if err == nil && applied {
		s.moved(out, q)
	}
	if err == nil && applied && s.opts.Observe != nil {
		s.opts.Observe.Finished(out)
	}
	return out, err
}

// apply completes an order in memory and writes its effects: the holding, the balance and
// the quote's price and volume. A sell whose holding is gone or too small (sold by another
// order meanwhile) is cancelled and moves nothing.
func (s *Service) apply(ctx context.Context, tx store.Tx, o *trade.Order, a *trade.Account, q *trade.Quote) error {
	t := now()
	if err := checkFunds(*a, *o); err != nil {
		// only an async order gets here short of money (sync Buy and Sell checked first): the
		// balance went to other orders since it was placed
		o.Status, o.CompletionDate = trade.StatusCancelled, t
		if s.opts.OnCancel != nil {
			s.opts.OnCancel(*o, err.Error())
		}
		return nil
	}
	switch o.Type {
	case trade.Buy:
		id, err := tx.CreateHolding(ctx, trade.Holding{AccountID: a.AccountID, Symbol: o.Symbol, Quantity: o.Quantity,
			PurchasePrice: o.Price, PurchaseDate: t})
		if err != nil {
			return err
		}
		o.HoldingID = id
		a.Balance -= o.Total()
	case trade.Sell:
		h, err := tx.LockHolding(ctx, o.HoldingID)
		if errors.Is(err, store.ErrNotFound) || (err == nil && (h.AccountID != a.AccountID || h.Quantity < o.Quantity)) {
			o.Status, o.CompletionDate = trade.StatusCancelled, t
			return nil
		}
		if err != nil {
			return err
		}
		if h.Quantity == o.Quantity {
			err = tx.DeleteHolding(ctx, h.HoldingID)
		} else {
			err = tx.SetHoldingQuantity(ctx, h.HoldingID, h.Quantity-o.Quantity)
		}
		if err != nil {
			return err
		}
		a.Balance += o.Total()
	default:
		return fmt.Errorf("order %d has unknown type %q", o.OrderID, o.Type)
	}
	q.Price = trade.NewPrice(q.Price, s.priceChange())
	q.Change = q.Price - q.Open
	q.Low, q.High = min(q.Low, q.Price), max(q.High, q.Price)
	q.Volume += o.Quantity
	if err := tx.UpdateQuote(ctx, *q); err != nil {
		return err
	}
	if err := tx.UpdateAccount(ctx, *a); err != nil {
		return err
	}
	o.Status, o.CompletionDate = trade.StatusClosed, t
	return nil
}
