// Package access is the web tier's side of the access modes: a trade.Service whose
// implementation — the in-process service or a SOAP, REST or gRPC client of a services host —
// can be switched while the web tier runs (the config page does it), as the original .NET StockTrader
// could be repointed without a restart. The web tier holds one Switch and never knows which
// implementation answered.
package access

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/remote"
)

// Config says what a Switch may switch between.
type Config struct {
	// Local is the in-process service; nil when this process has no database (a web tier that
	// only talks to a remote services host), and then "inprocess" cannot be chosen.
	Local trade.Service
	// HTTPAddr is the services host's SOAP/REST address (host:port); GRPCAddr its gRPC
	// address. Empty: that transport cannot be chosen.
	HTTPAddr, GRPCAddr string
	// Remote configures the remote clients (timeouts, pool sizes).
	Remote remote.Options
}

// Switch implements trade.Service by delegating every call to the current implementation.
type Switch struct {
	cfg Config
	cur atomic.Pointer[impl]

	mu      sync.Mutex // serialises Set and Close
	retired []*retired // replaced remote clients, closed by their timers
	closed  bool
}

// retired is a replaced remote client, closed once calls started on it can have ended.
type retired struct {
	client remote.Client
	timer  *time.Timer
	closed atomic.Bool
}

type impl struct {
	mode     string
	svc      trade.Service
	client   remote.Client // nil for inprocess
	settings remote.Settings
}

// New returns a Switch in the given mode.
func New(cfg Config, mode string) (*Switch, error) {
	s := &Switch{cfg: cfg}
	if err := s.Set(mode); err != nil {
		return nil, err
	}
	return s, nil
}

// Modes lists the modes this Switch can take, in-process first.
func (s *Switch) Modes() []string {
	var m []string
	if s.cfg.Local != nil {
		m = append(m, remote.InProcess)
	}
	if s.cfg.HTTPAddr != "" {
		m = append(m, remote.SOAP, remote.REST)
	}
	if s.cfg.GRPCAddr != "" {
		m = append(m, remote.GRPC)
	}
	return m
}

// Mode is the current access mode.
func (s *Switch) Mode() string { return s.cur.Load().mode }

// Settings describes the current mode's client (address, timeout, pool) for config pages and
// results files; Access is "inprocess" and the rest empty in-process.
func (s *Switch) Settings() remote.Settings { return s.cur.Load().settings }

// Set switches to mode. Calls already running finish on the implementation they started on;
// a replaced remote client is closed once they can have ended (its call timeout). An unknown
// or unavailable mode is an error that changes nothing.
func (s *Switch) Set(mode string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("access: switch is closed")
	}
	if c := s.cur.Load(); c != nil && c.mode == mode {
		return nil
	}
	var next *impl
	switch mode {
	case remote.InProcess:
		if s.cfg.Local == nil {
			return errors.New("access mode inprocess needs a database in this process: this web tier was started without one (it needs the " +
				"services role in this process)")
		}
		next = &impl{mode: mode, svc: s.cfg.Local, settings: remote.Settings{Access: mode}}
	case remote.SOAP, remote.REST, remote.GRPC:
		addr := s.cfg.HTTPAddr
		if mode == remote.GRPC {
			addr = s.cfg.GRPCAddr
		}
		if addr == "" {
			return fmt.Errorf("access mode %s needs the services host's address (its SOAP/REST address for soap and rest, its gRPC address "+
				"for grpc)", mode)
		}
		c, err := remote.Dial(mode, addr, s.cfg.Remote)
		if err != nil {
			return err
		}
		next = &impl{mode: mode, svc: unavailable{c, mode, addr}, client: c, settings: remote.Describe(mode, addr, s.cfg.Remote)}
	default:
		return fmt.Errorf("unknown access mode %q: want one of %v", mode, s.Modes())
	}
	if prev := s.cur.Swap(next); prev != nil && prev.client != nil {
		opts := s.cfg.Remote
		opts.SetDefaults()
		grace := opts.Timeout
		s.prune()
		r := &retired{client: prev.client}
		r.timer = time.AfterFunc(grace+time.Second, func() { _ = r.client.Close(); r.closed.Store(true) })
		s.retired = append(s.retired, r)
	}
	return nil
}

// prune forgets replaced clients their timers have closed, so switching back and forth does
// not grow the list. Called with mu held.
func (s *Switch) prune() {
	keep := s.retired[:0]
	for _, r := range s.retired {
		if !r.closed.Load() {
			keep = append(keep, r)
		}
	}
	clear(s.retired[len(keep):])
	s.retired = keep
}

// Close closes the remote clients, current and replaced.
func (s *Switch) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	for _, r := range s.retired {
		if r.timer.Stop() { // not yet closed by its timer
			errs = append(errs, r.client.Close())
		}
	}
	if c := s.cur.Load(); c.client != nil {
		errs = append(errs, c.client.Close())
	}
	return errors.Join(errs...)
}

// unavailable marks a remote client's system faults (host down, timeout, broken reply) with
// trade.ErrUnavailable, so the pages can say the services are unreachable; domain errors pass
// through as they are.
type unavailable struct {
	c          trade.Service
	mode, addr string
}

func (u unavailable) wrap(err error) error {
	if err == nil || trade.AsError(err) != nil || errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("%w (%s at %s): %v", trade.ErrUnavailable, u.mode, u.addr, err)
}

func (u unavailable) Login(ctx context.Context, userID, password string) (trade.Account, error) {
	a, err := u.c.Login(ctx, userID, password)
	return a, u.wrap(err)
}
func (u unavailable) Logout(ctx context.Context, userID string) error {
	return u.wrap(u.c.Logout(ctx, userID))
}
func (u unavailable) Register(ctx context.Context, r trade.RegisterRequest) (trade.Account, error) {
	a, err := u.c.Register(ctx, r)
	return a, u.wrap(err)
}
func (u unavailable) GetAccountData(ctx context.Context, userID string) (trade.Account, error) {
	a, err := u.c.GetAccountData(ctx, userID)
	return a, u.wrap(err)
}
func (u unavailable) GetAccountProfileData(ctx context.Context, userID string) (trade.AccountProfile, error) {
	p, err := u.c.GetAccountProfileData(ctx, userID)
	return p, u.wrap(err)
}
func (u unavailable) UpdateAccountProfile(ctx context.Context, p trade.AccountProfile) (trade.AccountProfile, error) {
	r, err := u.c.UpdateAccountProfile(ctx, p)
	return r, u.wrap(err)
}
func (u unavailable) GetHoldings(ctx context.Context, userID string) ([]trade.Holding, error) {
	h, err := u.c.GetHoldings(ctx, userID)
	return h, u.wrap(err)
}
func (u unavailable) GetHolding(ctx context.Context, userID string, holdingID int64) (trade.Holding, error) {
	h, err := u.c.GetHolding(ctx, userID, holdingID)
	return h, u.wrap(err)
}
func (u unavailable) GetOrders(ctx context.Context, userID string, limit int) ([]trade.Order, error) {
	o, err := u.c.GetOrders(ctx, userID, limit)
	return o, u.wrap(err)
}
func (u unavailable) GetClosedOrders(ctx context.Context, userID string) ([]trade.Order, error) {
	o, err := u.c.GetClosedOrders(ctx, userID)
	return o, u.wrap(err)
}
func (u unavailable) GetQuote(ctx context.Context, symbol string) (trade.Quote, error) {
	q, err := u.c.GetQuote(ctx, symbol)
	return q, u.wrap(err)
}
func (u unavailable) GetQuotes(ctx context.Context, symbols []string) ([]trade.Quote, error) {
	q, err := u.c.GetQuotes(ctx, symbols)
	return q, u.wrap(err)
}
func (u unavailable) GetMarketSummary(ctx context.Context) (trade.MarketSummary, error) {
	m, err := u.c.GetMarketSummary(ctx)
	return m, u.wrap(err)
}
func (u unavailable) Buy(ctx context.Context, userID, symbol string, quantity int64) (trade.Order, error) {
	o, err := u.c.Buy(ctx, userID, symbol, quantity)
	return o, u.wrap(err)
}
func (u unavailable) Sell(ctx context.Context, userID string, holdingID int64, quantity int64) (trade.Order, error) {
	o, err := u.c.Sell(ctx, userID, holdingID, quantity)
	return o, u.wrap(err)
}

// The trade.Service methods of Switch: one load of the current implementation per call.

func (s *Switch) svc() trade.Service { return s.cur.Load().svc }

func (s *Switch) Login(ctx context.Context, userID, password string) (trade.Account, error) {
	return s.svc().Login(ctx, userID, password)
}
func (s *Switch) Logout(ctx context.Context, userID string) error {
	return s.svc().Logout(ctx, userID)
}
func (s *Switch) Register(ctx context.Context, r trade.RegisterRequest) (trade.Account, error) {
	return s.svc().Register(ctx, r)
}

// RegisterAndLogin passes trade.RegisterLoginer through like GetAccountWithProfile.
func (s *Switch) RegisterAndLogin(ctx context.Context, r trade.RegisterRequest) (trade.Account, error) {
	return trade.RegisterAndLogin(ctx, s.svc(), r)
}
func (s *Switch) GetAccountData(ctx context.Context, userID string) (trade.Account, error) {
	return s.svc().GetAccountData(ctx, userID)
}
func (s *Switch) GetAccountProfileData(ctx context.Context, userID string) (trade.AccountProfile, error) {
	return s.svc().GetAccountProfileData(ctx, userID)
}

// GetAccountWithProfile passes trade.AccountWithProfileGetter through to the current service,
// or makes the two contract calls when it does not offer it.
func (s *Switch) GetAccountWithProfile(ctx context.Context, userID string) (trade.Account, trade.AccountProfile, error) {
	return trade.GetAccountWithProfile(ctx, s.svc(), userID)
}

// GetOrdersWithClosed passes trade.OrdersWithClosedGetter through like GetAccountWithProfile.
func (s *Switch) GetOrdersWithClosed(ctx context.Context, userID string, limit int) ([]trade.Order, []trade.Order, error) {
	return trade.GetOrdersWithClosed(ctx, s.svc(), userID, limit)
}

// GetAccountPage passes trade.AccountPageGetter through like GetAccountWithProfile.
func (s *Switch) GetAccountPage(ctx context.Context, userID string, limit int) (trade.AccountPage, error) {
	return trade.GetAccountPage(ctx, s.svc(), userID, limit)
}

// GetAccountSummary passes trade.AccountSummaryGetter through like GetAccountWithProfile.
func (s *Switch) GetAccountSummary(ctx context.Context, userID string) (trade.Account, trade.HoldingsSummary, error) {
	return trade.GetAccountSummary(ctx, s.svc(), userID)
}

// GetHoldingsWithQuotes passes trade.HoldingsWithQuotesGetter through like GetAccountWithProfile.
func (s *Switch) GetHoldingsWithQuotes(ctx context.Context, userID string) ([]trade.Holding, []trade.Quote, error) {
	return trade.GetHoldingsWithQuotes(ctx, s.svc(), userID)
}
func (s *Switch) UpdateAccountProfile(ctx context.Context, p trade.AccountProfile) (trade.AccountProfile, error) {
	return s.svc().UpdateAccountProfile(ctx, p)
}
func (s *Switch) GetHoldings(ctx context.Context, userID string) ([]trade.Holding, error) {
	return s.svc().GetHoldings(ctx, userID)
}
func (s *Switch) GetHolding(ctx context.Context, userID string, holdingID int64) (trade.Holding, error) {
	return s.svc().GetHolding(ctx, userID, holdingID)
}
func (s *Switch) GetOrders(ctx context.Context, userID string, limit int) ([]trade.Order, error) {
	return s.svc().GetOrders(ctx, userID, limit)
}
func (s *Switch) GetClosedOrders(ctx context.Context, userID string) ([]trade.Order, error) {
	return s.svc().GetClosedOrders(ctx, userID)
}
func (s *Switch) GetQuote(ctx context.Context, symbol string) (trade.Quote, error) {
	return s.svc().GetQuote(ctx, symbol)
}
func (s *Switch) GetQuotes(ctx context.Context, symbols []string) ([]trade.Quote, error) {
	return s.svc().GetQuotes(ctx, symbols)
}
func (s *Switch) GetMarketSummary(ctx context.Context) (trade.MarketSummary, error) {
	return s.svc().GetMarketSummary(ctx)
}
func (s *Switch) Buy(ctx context.Context, userID, symbol string, quantity int64) (trade.Order, error) {
	return s.svc().Buy(ctx, userID, symbol, quantity)
}
func (s *Switch) Sell(ctx context.Context, userID string, holdingID int64, quantity int64) (trade.Order, error) {
	return s.svc().Sell(ctx, userID, holdingID, quantity)
}
