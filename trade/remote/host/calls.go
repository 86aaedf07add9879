package host

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tradebench/tradebench/trade"
)

// The operations a services host counts, named as in the trade service contract (and as the
// SOAP operations are).
const (
	OpLogin                 = "login"
	OpLogout                = "logout"
	OpRegister              = "register"
	OpGetAccountData        = "getAccountData"
	OpGetAccountProfileData = "getAccountProfileData"
	OpUpdateAccountProfile  = "updateAccountProfile"
	OpGetHoldings           = "getHoldings"
	OpGetHolding            = "getHolding"
	OpGetOrders             = "getOrders"
	OpGetClosedOrders       = "getClosedOrders"
	OpGetQuote              = "getQuote"
	OpGetQuotes             = "getQuotes"
	OpGetMarketSummary      = "getMarketSummary"
	OpBuy                   = "buy"
	OpSell                  = "sell"
	OpCompleteOrder         = "completeOrder"
)

// Operations lists every counted operation, in the contract's order.
var Operations = []string{
	OpLogin, OpLogout, OpRegister, OpGetAccountData, OpGetAccountProfileData, OpUpdateAccountProfile,
	OpGetHoldings, OpGetHolding, OpGetOrders, OpGetClosedOrders, OpGetQuote, OpGetQuotes,
	OpGetMarketSummary, OpBuy, OpSell, OpCompleteOrder,
}

// op indexes Operations.
type op int

const (
	opLogin op = iota
	opLogout
	opRegister
	opGetAccountData
	opGetAccountProfileData
	opUpdateAccountProfile
	opGetHoldings
	opGetHolding
	opGetOrders
	opGetClosedOrders
	opGetQuote
	opGetQuotes
	opGetMarketSummary
	opBuy
	opSell
	opCompleteOrder
	numOps
)

// counters is one transport's calls, per operation.
type counters [numOps]atomic.Int64

// Calls counts the calls that reached a trade service, per transport and operation: a services
// host counts every call its SOAP, REST and gRPC endpoints pass to the service (Host.Calls), so
// a test or an operator can see which transport a web tier really uses — relabelling an access
// mode without changing the client shows up as calls on the wrong transport, or none. A call
// is counted when it reaches the service, whatever its outcome. The zero value is ready; it is
// safe for concurrent use, and counting costs one atomic add per call.
type Calls struct {
	mu sync.Mutex
	by map[string]*counters
}

// CallCount is the number of calls of one operation over one transport.
type CallCount struct {
	Transport string `json:"transport"`
	Operation string `json:"operation"`
	Calls     int64  `json:"calls"`
}

func (c *Calls) counters(transport string) *counters {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.by == nil {
		c.by = map[string]*counters{}
	}
	n := c.by[transport]
	if n == nil {
		n = new(counters)
		c.by[transport] = n
	}
	return n
}

// Service returns svc counting each call under transport (e.g. "soap", or "inprocess" for a
// test that wants to see in-process calls too).
func (c *Calls) Service(transport string, svc trade.Service) trade.Service {
	return &countedService{svc: svc, n: c.counters(transport)}
}

// Processor returns p counting completeOrder calls under transport (nil for a nil p).
func (c *Calls) Processor(transport string, p trade.OrderProcessor) trade.OrderProcessor {
	if p == nil {
		return nil
	}
	return &countedProcessor{p: p, n: c.counters(transport)}
}

// Count is the number of calls of operation over transport so far.
func (c *Calls) Count(transport, operation string) int64 {
	i := slices.Index(Operations, operation)
	if i < 0 {
		return 0
	}
	c.mu.Lock()
	n := c.by[transport]
	c.mu.Unlock()
	if n == nil {
		return 0
	}
	return n[i].Load()
}

// Total is the number of calls of every operation over transport so far.
func (c *Calls) Total(transport string) int64 {
	var sum int64
	for _, op := range Operations {
		sum += c.Count(transport, op)
	}
	return sum
}

// Counts lists every non-zero count, by transport then in the contract's order of operations.
func (c *Calls) Counts() []CallCount {
	c.mu.Lock()
	transports := make([]string, 0, len(c.by))
	for t := range c.by {
		transports = append(transports, t)
	}
	c.mu.Unlock()
	slices.Sort(transports)
	var out []CallCount
	for _, t := range transports {
		for _, op := range Operations {
			if n := c.Count(t, op); n > 0 {
				out = append(out, CallCount{Transport: t, Operation: op, Calls: n})
			}
		}
	}
	return out
}

// countedService counts each call, then makes it.
type countedService struct {
	svc trade.Service
	n   *counters
}

func (s *countedService) Login(ctx context.Context, userID, password string) (trade.Account, error) {
	s.n[opLogin].Add(1)
	return s.svc.Login(ctx, userID, password)
}

func (s *countedService) Logout(ctx context.Context, userID string) error {
	s.n[opLogout].Add(1)
	return s.svc.Logout(ctx, userID)
}

func (s *countedService) Register(ctx context.Context, r trade.RegisterRequest) (trade.Account, error) {
	s.n[opRegister].Add(1)
	return s.svc.Register(ctx, r)
}

func (s *countedService) GetAccountData(ctx context.Context, userID string) (trade.Account, error) {
	s.n[opGetAccountData].Add(1)
	return s.svc.GetAccountData(ctx, userID)
}

func (s *countedService) GetAccountProfileData(ctx context.Context, userID string) (trade.AccountProfile, error) {
	s.n[opGetAccountProfileData].Add(1)
	return s.svc.GetAccountProfileData(ctx, userID)
}

func (s *countedService) UpdateAccountProfile(ctx context.Context, p trade.AccountProfile) (trade.AccountProfile, error) {
	s.n[opUpdateAccountProfile].Add(1)
	return s.svc.UpdateAccountProfile(ctx, p)
}

func (s *countedService) GetHoldings(ctx context.Context, userID string) ([]trade.Holding, error) {
	s.n[opGetHoldings].Add(1)
	return s.svc.GetHoldings(ctx, userID)
}

func (s *countedService) GetHolding(ctx context.Context, userID string, holdingID int64) (trade.Holding, error) {
	s.n[opGetHolding].Add(1)
	return s.svc.GetHolding(ctx, userID, holdingID)
}

func (s *countedService) GetOrders(ctx context.Context, userID string, limit int) ([]trade.Order, error) {
	s.n[opGetOrders].Add(1)
	return s.svc.GetOrders(ctx, userID, limit)
}

func (s *countedService) GetClosedOrders(ctx context.Context, userID string) ([]trade.Order, error) {
	s.n[opGetClosedOrders].Add(1)
	return s.svc.GetClosedOrders(ctx, userID)
}

func (s *countedService) GetQuote(ctx context.Context, symbol string) (trade.Quote, error) {
	s.n[opGetQuote].Add(1)
	return s.svc.GetQuote(ctx, symbol)
}

func (s *countedService) GetQuotes(ctx context.Context, symbols []string) ([]trade.Quote, error) {
	s.n[opGetQuotes].Add(1)
	return s.svc.GetQuotes(ctx, symbols)
}

func (s *countedService) GetMarketSummary(ctx context.Context) (trade.MarketSummary, error) {
	s.n[opGetMarketSummary].Add(1)
	return s.svc.GetMarketSummary(ctx)
}

func (s *countedService) Buy(ctx context.Context, userID, symbol string, quantity int64) (trade.Order, error) {
	s.n[opBuy].Add(1)
	return s.svc.Buy(ctx, userID, symbol, quantity)
}

func (s *countedService) Sell(ctx context.Context, userID string, holdingID int64, quantity int64) (trade.Order, error) {
	s.n[opSell].Add(1)
	return s.svc.Sell(ctx, userID, holdingID, quantity)
}

// countedProcessor counts each completeOrder, then makes it.
type countedProcessor struct {
	p trade.OrderProcessor
	n *counters
}

func (p *countedProcessor) CompleteOrder(ctx context.Context, orderID int64) (trade.Order, error) {
	p.n[opCompleteOrder].Add(1)
	return p.p.CompleteOrder(ctx, orderID)
}
