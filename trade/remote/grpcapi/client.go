package grpcapi

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	ggrpc "google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/remote/clientopt"
	pb "github.com/tradebench/tradebench/trade/remote/tradepb"
)

// DefaultClientMaxRecvBytes bounds a response: 100 orders or quotes are ~10 KB.
const DefaultClientMaxRecvBytes = 16 << 20

// Options configures a Client: the remote clients' one options type (GRPCConns is the pool;
// Auth's dial options, the service token's per-RPC credentials and TLS, come after the
// client's own).
type Options = clientopt.Options

// Client implements trade.Service and trade.OrderProcessor over gRPC. It is safe for
// concurrent use. Calls fail fast (UNAVAILABLE) while the host is unreachable instead of
// waiting for it.
type Client struct {
	addr    string
	opts    Options
	conns   []*ggrpc.ClientConn
	stubs   []pb.TradeServiceClient
	next    atomic.Uint32
	timeout time.Duration
}

var (
	_ trade.Service        = (*Client)(nil)
	_ trade.OrderProcessor = (*Client)(nil)
)

// NewClient connects lazily to a services host's gRPC endpoint at addr ("host:port").
func NewClient(addr string, opts Options) (*Client, error) {
	if addr == "" {
		return nil, errors.New("grpc: empty services host address")
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, fmt.Errorf("grpc: services host address %q: want host:port: %w", addr, err)
	}
	opts.SetDefaults()
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("grpc: %w", err)
	}
	dialTimeout := opts.DialTimeout
	if dialTimeout <= 0 {
		dialTimeout = opts.Timeout
	}
	c := &Client{addr: addr, opts: opts, timeout: opts.Timeout}
	for range opts.GRPCConns {
		do := append([]ggrpc.DialOption{
			ggrpc.WithTransportCredentials(insecure.NewCredentials()),
			ggrpc.WithDefaultCallOptions(ggrpc.MaxCallRecvMsgSize(DefaultClientMaxRecvBytes)),
			// Fixed flow-control windows turn off grpc-go's BDP estimator, whose pings add
			// frames (and wake-ups) to small request/response calls on a fast network.
			ggrpc.WithInitialWindowSize(1 << 20),
			ggrpc.WithInitialConnWindowSize(1 << 20),
			// A host that went away is retried with a short backoff, so it is back in use
			// soon after it returns; meanwhile calls fail fast.
			ggrpc.WithConnectParams(ggrpc.ConnectParams{
				Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 2 * time.Second},
				MinConnectTimeout: dialTimeout,
			}),
		}, opts.Auth.GRPCDialOptions()...)
		cc, err := ggrpc.NewClient("passthrough:///"+addr, do...)
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("grpc: client for %s: %w", addr, err)
		}
		c.conns = append(c.conns, cc)
		c.stubs = append(c.stubs, pb.NewTradeServiceClient(cc))
	}
	return c, nil
}

// Addr is the host address the client calls.
func (c *Client) Addr() string { return c.addr }

// Options returns the effective settings (defaults filled in), for config pages and results.
func (c *Client) Options() Options { return c.opts }

// Close releases the connections.
func (c *Client) Close() error {
	var errs []error
	for _, cc := range c.conns {
		errs = append(errs, cc.Close())
	}
	return errors.Join(errs...)
}

// call picks a connection round-robin and bounds the call by the timeout.
func (c *Client) call(ctx context.Context) (context.Context, context.CancelFunc, pb.TradeServiceClient) {
	stub := c.stubs[int(c.next.Add(1))%len(c.stubs)]
	if k := trade.IdempotencyKeyOf(ctx); k != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, IdempotencyMD, k)
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	return ctx, cancel, stub
}

func (c *Client) Login(ctx context.Context, userID, password string) (trade.Account, error) {
	ctx, cancel, s := c.call(ctx)
	defer cancel()
	a, err := s.Login(ctx, &pb.LoginRequest{UserId: userID, Password: password})
	if err != nil {
		return trade.Account{}, fromStatus("Login", err)
	}
	return fromAccount(a), nil
}

func (c *Client) Logout(ctx context.Context, userID string) error {
	ctx, cancel, s := c.call(ctx)
	defer cancel()
	_, err := s.Logout(ctx, &pb.UserRequest{UserId: userID})
	return fromStatus("Logout", err)
}

func (c *Client) Register(ctx context.Context, r trade.RegisterRequest) (trade.Account, error) {
	ctx, cancel, s := c.call(ctx)
	defer cancel()
	a, err := s.Register(ctx, &pb.RegisterRequest{
		UserId:           r.UserID,
		Password:         r.Password,
		FullName:         r.FullName,
		Address:          r.Address,
		Email:            r.Email,
		CreditCard:       r.CreditCard,
		OpenBalanceCents: int64(r.OpenBalance),
	})
	if err != nil {
		return trade.Account{}, fromStatus("Register", err)
	}
	return fromAccount(a), nil
}

func (c *Client) GetAccountData(ctx context.Context, userID string) (trade.Account, error) {
	ctx, cancel, s := c.call(ctx)
	defer cancel()
	a, err := s.GetAccountData(ctx, &pb.UserRequest{UserId: userID})
	if err != nil {
		return trade.Account{}, fromStatus("GetAccountData", err)
	}
	return fromAccount(a), nil
}

func (c *Client) GetAccountProfileData(ctx context.Context, userID string) (trade.AccountProfile, error) {
	ctx, cancel, s := c.call(ctx)
	defer cancel()
	p, err := s.GetAccountProfileData(ctx, &pb.UserRequest{UserId: userID})
	if err != nil {
		return trade.AccountProfile{}, fromStatus("GetAccountProfileData", err)
	}
	return fromProfile(p), nil
}

func (c *Client) UpdateAccountProfile(ctx context.Context, p trade.AccountProfile) (trade.AccountProfile, error) {
	ctx, cancel, s := c.call(ctx)
	defer cancel()
	out, err := s.UpdateAccountProfile(ctx, toProfile(p))
	if err != nil {
		return trade.AccountProfile{}, fromStatus("UpdateAccountProfile", err)
	}
	return fromProfile(out), nil
}

func (c *Client) GetHoldings(ctx context.Context, userID string) ([]trade.Holding, error) {
	ctx, cancel, s := c.call(ctx)
	defer cancel()
	hs, err := s.GetHoldings(ctx, &pb.UserRequest{UserId: userID})
	if err != nil {
		return nil, fromStatus("GetHoldings", err)
	}
	out := make([]trade.Holding, len(hs.GetHoldings()))
	for i, h := range hs.GetHoldings() {
		out[i] = fromHolding(h)
	}
	return out, nil
}

func (c *Client) GetHolding(ctx context.Context, userID string, holdingID int64) (trade.Holding, error) {
	ctx, cancel, s := c.call(ctx)
	defer cancel()
	h, err := s.GetHolding(ctx, &pb.GetHoldingRequest{UserId: userID, HoldingId: holdingID})
	if err != nil {
		return trade.Holding{}, fromStatus("GetHolding", err)
	}
	return fromHolding(h), nil
}

func (c *Client) GetOrders(ctx context.Context, userID string, limit int) ([]trade.Order, error) {
	ctx, cancel, s := c.call(ctx)
	defer cancel()
	os, err := s.GetOrders(ctx, &pb.GetOrdersRequest{UserId: userID, Limit: int64(limit)})
	if err != nil {
		return nil, fromStatus("GetOrders", err)
	}
	return fromOrders(os)
}

func (c *Client) GetClosedOrders(ctx context.Context, userID string) ([]trade.Order, error) {
	ctx, cancel, s := c.call(ctx)
	defer cancel()
	os, err := s.GetClosedOrders(ctx, &pb.UserRequest{UserId: userID})
	if err != nil {
		return nil, fromStatus("GetClosedOrders", err)
	}
	return fromOrders(os)
}

func (c *Client) GetQuote(ctx context.Context, symbol string) (trade.Quote, error) {
	ctx, cancel, s := c.call(ctx)
	defer cancel()
	q, err := s.GetQuote(ctx, &pb.GetQuoteRequest{Symbol: symbol})
	if err != nil {
		return trade.Quote{}, fromStatus("GetQuote", err)
	}
	return fromQuote(q), nil
}

func (c *Client) GetQuotes(ctx context.Context, symbols []string) ([]trade.Quote, error) {
	ctx, cancel, s := c.call(ctx)
	defer cancel()
	qs, err := s.GetQuotes(ctx, &pb.GetQuotesRequest{Symbols: symbols})
	if err != nil {
		return nil, fromStatus("GetQuotes", err)
	}
	return fromQuotes(qs.GetQuotes()), nil
}

func (c *Client) GetMarketSummary(ctx context.Context) (trade.MarketSummary, error) {
	ctx, cancel, s := c.call(ctx)
	defer cancel()
	m, err := s.GetMarketSummary(ctx, &pb.Empty{})
	if err != nil {
		return trade.MarketSummary{}, fromStatus("GetMarketSummary", err)
	}
	return fromSummary(m), nil
}

func (c *Client) order(method string, o *pb.Order, err error) (trade.Order, error) {
	if err != nil {
		return trade.Order{}, fromStatus(method, err)
	}
	return fromOrder(o)
}

func (c *Client) Buy(ctx context.Context, userID, symbol string, quantity int64) (trade.Order, error) {
	ctx, cancel, s := c.call(ctx)
	defer cancel()
	o, err := s.Buy(ctx, &pb.BuyRequest{UserId: userID, Symbol: symbol, Quantity: quantity})
	return c.order("Buy", o, err)
}

func (c *Client) Sell(ctx context.Context, userID string, holdingID int64, quantity int64) (trade.Order, error) {
	ctx, cancel, s := c.call(ctx)
	defer cancel()
	o, err := s.Sell(ctx, &pb.SellRequest{UserId: userID, HoldingId: holdingID, Quantity: quantity})
	return c.order("Sell", o, err)
}

func (c *Client) CompleteOrder(ctx context.Context, orderID int64) (trade.Order, error) {
	ctx, cancel, s := c.call(ctx)
	defer cancel()
	o, err := s.CompleteOrder(ctx, &pb.CompleteOrderRequest{OrderId: orderID})
	return c.order("CompleteOrder", o, err)
}
