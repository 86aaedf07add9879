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
	"math/rand/v2"
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
