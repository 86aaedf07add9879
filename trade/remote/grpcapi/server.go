// Package grpcapi serves trade.Service over gRPC (the binary transport, the 2007 paper's WCF
// netTcpBinding counterpart) and provides a client that implements trade.Service over it.
// The wire contract is trade/remote/tradepb/trade.proto.
package grpcapi

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"

	ggrpc "google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	gproto "google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/protoadapt"

	"github.com/tradebench/tradebench/internal/httpserve"
	"github.com/tradebench/tradebench/trade"
	pb "github.com/tradebench/tradebench/trade/remote/tradepb"
)

// DefaultMaxRecvBytes bounds one request message; the largest legitimate request (a profile
// update or a 100-symbol quote list) is a few kilobytes.
const DefaultMaxRecvBytes = 256 << 10

// ServerOptions configures NewServer.
type ServerOptions struct {
	// Processor serves CompleteOrder; nil uses the service itself when it implements
	// trade.OrderProcessor, else CompleteOrder is UNIMPLEMENTED.
	Processor trade.OrderProcessor
	// MaxRecvBytes bounds a request message (0 = DefaultMaxRecvBytes).
	MaxRecvBytes int
	// Logger receives system faults and recovered panics (nil = slog.Default()).
	Logger *slog.Logger
	// Extra server options (keepalive, TLS credentials...).
	Extra []ggrpc.ServerOption
}

// NewServer returns a gRPC server with the trade service registered. The caller calls Serve
// on a listener and Stop/GracefulStop.
func NewServer(svc trade.Service, opts ServerOptions) *ggrpc.Server {
	if opts.MaxRecvBytes <= 0 {
		opts.MaxRecvBytes = DefaultMaxRecvBytes
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Processor == nil {
		opts.Processor, _ = svc.(trade.OrderProcessor)
	}
	so := append([]ggrpc.ServerOption{
		ggrpc.ForceServerCodecV2(lenientCodec{encoding.GetCodecV2(proto.Name)}),
		ggrpc.MaxRecvMsgSize(opts.MaxRecvBytes),
		// Fixed flow-control windows turn off the BDP estimator's pings (see the client).
		ggrpc.InitialWindowSize(1 << 20),
		ggrpc.InitialConnWindowSize(1 << 20),
		ggrpc.ChainUnaryInterceptor(recoverInterceptor(opts.Logger), keyInterceptor),
	}, append(httpserve.GRPCServerOptions(), opts.Extra...)...)
	s := ggrpc.NewServer(so...)
	s.RegisterService(serviceDesc(), &server{svc: svc, proc: opts.Processor, log: opts.Logger})
	return s
}

// grpc-go reports a request it cannot unmarshal as INTERNAL, and writes that status itself
// before the handler sees the error. A malformed message is the caller's mistake, so
// lenientCodec records the error against the message instead of failing, and the wrapped
// handlers (serviceDesc) answer INVALID_ARGUMENT for it.
type lenientCodec struct{ encoding.CodecV2 }

// undecodable maps a request message (its pointer, allocated per call by the generated
// handler) to why it could not be decoded; the handler removes the entry at once.
var undecodable sync.Map

var tradePackage = pb.File_trade_remote_tradepb_trade_proto.Package()

func (c lenientCodec) Unmarshal(data mem.BufferSlice, v any) error {
	err := c.CodecV2.Unmarshal(data, v)
	// Only this service's messages: another service registered on the server would never
	// collect its entries.
	if m, ok := v.(protoadapt.MessageV2); ok && err != nil && m.ProtoReflect().Descriptor().ParentFile().Package() == tradePackage {
		gproto.Reset(m)
		undecodable.Store(v, err)
		return nil
	}
	return err
}

// serviceDesc is the generated service description with every method's request decoding
// wrapped to turn an undecodable message into INVALID_ARGUMENT.
func serviceDesc() *ggrpc.ServiceDesc {
	d := pb.TradeService_ServiceDesc
	d.Methods = make([]ggrpc.MethodDesc, len(pb.TradeService_ServiceDesc.Methods))
	for i, m := range pb.TradeService_ServiceDesc.Methods {
		h := m.Handler
		d.Methods[i] = ggrpc.MethodDesc{
			MethodName: m.MethodName,
			Handler: func(srv any, ctx context.Context, dec func(any) error, in ggrpc.UnaryServerInterceptor) (any, error) {
				return h(srv, ctx, func(v any) error {
					if err := dec(v); err != nil {
						return err
					}
					if err, bad := undecodable.LoadAndDelete(v); bad {
						return status.Errorf(codes.InvalidArgument, "malformed %s request message: %v", m.MethodName, err)
					}
					return nil
				}, in)
			},
		}
	}
	return &d
}

// recoverInterceptor turns a panic in a handler into INTERNAL instead of killing the host.
func recoverInterceptor(log *slog.Logger) ggrpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *ggrpc.UnaryServerInfo, handler ggrpc.UnaryHandler) (resp any, err error) {
		defer func() {
			if r := recover(); r != nil {
				log.Error("grpc: panic in handler", "method", info.FullMethod, "panic", r, "stack", string(debug.Stack()))
				resp, err = nil, status.Error(codes.Internal, fmt.Sprintf("internal error in %s", info.FullMethod))
			}
		}()
		return handler(ctx, req)
	}
}

type server struct {
	pb.UnimplementedTradeServiceServer
	svc  trade.Service
	proc trade.OrderProcessor
	log  *slog.Logger
}

// fault logs system faults (not domain errors) and converts any error to a status.
func (s *server) fault(method string, err error) error {
	if err != nil && trade.AsError(err) == nil {
		s.log.Warn("grpc: trade service fault", "method", method, "err", err)
	}
	return toStatus(err)
}

func (s *server) Login(ctx context.Context, r *pb.LoginRequest) (*pb.Account, error) {
	a, err := s.svc.Login(ctx, r.GetUserId(), r.GetPassword())
	if err != nil {
		return nil, s.fault("Login", err)
	}
	return toAccount(a), nil
}

func (s *server) Logout(ctx context.Context, r *pb.UserRequest) (*pb.Empty, error) {
	if err := s.svc.Logout(ctx, r.GetUserId()); err != nil {
		return nil, s.fault("Logout", err)
	}
	return &pb.Empty{}, nil
}

func (s *server) Register(ctx context.Context, r *pb.RegisterRequest) (*pb.Account, error) {
	a, err := s.svc.Register(ctx, trade.RegisterRequest{
		UserID:      r.GetUserId(),
		Password:    r.GetPassword(),
		FullName:    r.GetFullName(),
		Address:     r.GetAddress(),
		Email:       r.GetEmail(),
		CreditCard:  r.GetCreditCard(),
		OpenBalance: trade.Money(r.GetOpenBalanceCents()),
	})
	if err != nil {
		return nil, s.fault("Register", err)
	}
	return toAccount(a), nil
}

func (s *server) GetAccountData(ctx context.Context, r *pb.UserRequest) (*pb.Account, error) {
	a, err := s.svc.GetAccountData(ctx, r.GetUserId())
	if err != nil {
		return nil, s.fault("GetAccountData", err)
	}
	return toAccount(a), nil
}

func (s *server) GetAccountProfileData(ctx context.Context, r *pb.UserRequest) (*pb.AccountProfile, error) {
	p, err := s.svc.GetAccountProfileData(ctx, r.GetUserId())
	if err != nil {
		return nil, s.fault("GetAccountProfileData", err)
	}
	p.Password = "" // never returned, whatever the service does
	return toProfile(p), nil
}

func (s *server) UpdateAccountProfile(ctx context.Context, r *pb.AccountProfile) (*pb.AccountProfile, error) {
	p, err := s.svc.UpdateAccountProfile(ctx, fromProfile(r))
	if err != nil {
		return nil, s.fault("UpdateAccountProfile", err)
	}
	p.Password = ""
	return toProfile(p), nil
}

func (s *server) GetHoldings(ctx context.Context, r *pb.UserRequest) (*pb.Holdings, error) {
	hs, err := s.svc.GetHoldings(ctx, r.GetUserId())
	if err != nil {
		return nil, s.fault("GetHoldings", err)
	}
	out := &pb.Holdings{Holdings: make([]*pb.Holding, len(hs))}
	for i, h := range hs {
		out.Holdings[i] = toHolding(h)
	}
	return out, nil
}

func (s *server) GetHolding(ctx context.Context, r *pb.GetHoldingRequest) (*pb.Holding, error) {
	h, err := s.svc.GetHolding(ctx, r.GetUserId(), r.GetHoldingId())
	if err != nil {
		return nil, s.fault("GetHolding", err)
	}
	return toHolding(h), nil
}

func (s *server) GetOrders(ctx context.Context, r *pb.GetOrdersRequest) (*pb.Orders, error) {
	limit := r.GetLimit()
	if limit > int64(^uint32(0)>>1) {
		limit = int64(^uint32(0) >> 1) // clamp: int may be 32 bits, and no store holds more
	}
	os, err := s.svc.GetOrders(ctx, r.GetUserId(), int(limit))
	if err != nil {
		return nil, s.fault("GetOrders", err)
	}
	out, err := toOrders(os)
	return out, s.fault("GetOrders", err)
}

func (s *server) GetClosedOrders(ctx context.Context, r *pb.UserRequest) (*pb.Orders, error) {
	os, err := s.svc.GetClosedOrders(ctx, r.GetUserId())
	if err != nil {
		return nil, s.fault("GetClosedOrders", err)
	}
	out, err := toOrders(os)
	return out, s.fault("GetClosedOrders", err)
}

func (s *server) GetQuote(ctx context.Context, r *pb.GetQuoteRequest) (*pb.Quote, error) {
	q, err := s.svc.GetQuote(ctx, r.GetSymbol())
	if err != nil {
		return nil, s.fault("GetQuote", err)
	}
	return toQuote(q), nil
}

func (s *server) GetQuotes(ctx context.Context, r *pb.GetQuotesRequest) (*pb.Quotes, error) {
	qs, err := s.svc.GetQuotes(ctx, r.GetSymbols())
	if err != nil {
		return nil, s.fault("GetQuotes", err)
	}
	return &pb.Quotes{Quotes: toQuotes(qs)}, nil
}

func (s *server) GetMarketSummary(ctx context.Context, _ *pb.Empty) (*pb.MarketSummary, error) {
	m, err := s.svc.GetMarketSummary(ctx)
	if err != nil {
		return nil, s.fault("GetMarketSummary", err)
	}
	return toSummary(m), nil
}

func (s *server) order(method string, o trade.Order, err error) (*pb.Order, error) {
	if err != nil {
		return nil, s.fault(method, err)
	}
	p, err := toOrder(o)
	return p, s.fault(method, err)
}

func (s *server) Buy(ctx context.Context, r *pb.BuyRequest) (*pb.Order, error) {
	o, err := s.svc.Buy(ctx, r.GetUserId(), r.GetSymbol(), r.GetQuantity())
	return s.order("Buy", o, err)
}

func (s *server) Sell(ctx context.Context, r *pb.SellRequest) (*pb.Order, error) {
	o, err := s.svc.Sell(ctx, r.GetUserId(), r.GetHoldingId(), r.GetQuantity())
	return s.order("Sell", o, err)
}

func (s *server) CompleteOrder(ctx context.Context, r *pb.CompleteOrderRequest) (*pb.Order, error) {
	if s.proc == nil {
		return nil, status.Error(codes.Unimplemented, "this services host has no order processor")
	}
	o, err := s.proc.CompleteOrder(ctx, r.GetOrderId())
	return s.order("CompleteOrder", o, err)
}

// IdempotencyMD is the metadata that carries a call's idempotency key (trade.WithIdempotencyKey).
const IdempotencyMD = "idempotency-key"

// keyInterceptor hands the call's idempotency key to the service in its context.
func keyInterceptor(ctx context.Context, req any, _ *ggrpc.UnaryServerInfo, handler ggrpc.UnaryHandler) (any, error) {
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if ks := md.Get(IdempotencyMD); len(ks) > 0 {
			ctx = trade.WithIdempotencyKey(ctx, ks[0])
		}
	}
	return handler(ctx, req)
}
