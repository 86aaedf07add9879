// Package grpcapi serves and calls the WSTest operations over gRPC (wstestpb), the binary
// transport.
package grpcapi

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/tradebench/tradebench/internal/httpserve"
	"github.com/tradebench/tradebench/internal/money"
	"github.com/tradebench/tradebench/wstest"
	pb "github.com/tradebench/tradebench/wstest/wstestpb"
)

// Server implements the WSTest gRPC service.
type Server struct {
	pb.UnimplementedWSTestServer
	lim wstest.Limits
}

// NewServer returns a grpc.Server with the WSTest service registered. Messages are bounded by
// lim.MaxBodyBytes, and their items by lim.MaxItems before they are decoded (bounded.go). The
// server decodes with its own codec, so opts must not force another.
func NewServer(lim wstest.Limits, opts ...grpc.ServerOption) *grpc.Server {
	lim = lim.OrDefault()
	opts = append(append([]grpc.ServerOption{grpc.MaxRecvMsgSize(int(lim.MaxBodyBytes)), grpc.MaxSendMsgSize(int(lim.MaxBodyBytes))},
		httpserve.GRPCServerOptions()...), opts...)
	opts = append(opts, grpc.ForceServerCodecV2(newBoundedCodec())) // last: the handlers need it
	s := grpc.NewServer(opts...)
	s.RegisterService(&serviceDesc, &Server{lim: lim})
	return s
}

// EchoVoid implements pb.WSTestServer.
func (s *Server) EchoVoid(context.Context, *pb.EchoVoidRequest) (*pb.EchoVoidResponse, error) {
	return &pb.EchoVoidResponse{}, nil
}

// EchoStruct implements pb.WSTestServer. The decoded messages go straight back (the echo).
func (s *Server) EchoStruct(_ context.Context, r *pb.EchoStructRequest) (*pb.EchoStructResponse, error) {
	if err := s.lim.CheckItems("array", len(r.Array)); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	return &pb.EchoStructResponse{EchoStructResult: r.Array}, nil
}

// EchoList implements pb.WSTestServer.
func (s *Server) EchoList(_ context.Context, r *pb.EchoListRequest) (*pb.EchoListResponse, error) {
	n := 0
	for x := r.List; x != nil && n <= s.lim.MaxItems; x = x.Next {
		n++
	}
	if err := s.lim.CheckItems("list", n); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	return &pb.EchoListResponse{EchoListResult: r.List}, nil
}

// EchoSynthetic implements pb.WSTestServer.
func (s *Server) EchoSynthetic(_ context.Context, r *pb.EchoSyntheticRequest) (*pb.EchoSyntheticResponse, error) {
	return &pb.EchoSyntheticResponse{EchoSyntheticResult: r.Synth}, nil
}

// GetOrder implements pb.WSTestServer.
func (s *Server) GetOrder(_ context.Context, r *pb.GetOrderRequest) (*pb.GetOrderResponse, error) {
	if r.MessageSize < 0 {
		return nil, status.Errorf(codes.InvalidArgument, "message_size %d: must be 0 or more", r.MessageSize)
	}
	if err := s.lim.CheckItems("message_size", int(r.MessageSize)); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	return &pb.GetOrderResponse{GetOrderResult: OrderToPB(wstest.BuildOrder(r.OrderId, r.CustomerId, r.MessageSize))}, nil
}

// StructsToPB converts an array.
func StructsToPB(in []wstest.Struct) []*pb.TestStruct {
	out := make([]*pb.TestStruct, len(in))
	slab := make([]pb.TestStruct, len(in))
	for i := range in {
		slab[i].I, slab[i].F, slab[i].S = in[i].I, in[i].F, in[i].S
		out[i] = &slab[i]
	}
	return out
}

// StructsFromPB converts an array.
func StructsFromPB(in []*pb.TestStruct) []wstest.Struct {
	out := make([]wstest.Struct, len(in))
	for i, s := range in {
		out[i] = wstest.Struct{I: s.GetI(), F: s.GetF(), S: s.GetS()}
	}
	return out
}

// ListToPB converts a list iteratively.
func ListToPB(n *wstest.Node) *pb.TestNode {
	var head, tail *pb.TestNode
	for ; n != nil; n = n.Next {
		x := &pb.TestNode{I: n.I, F: n.F, S: n.S}
		if head == nil {
			head = x
		} else {
			tail.Next = x
		}
		tail = x
	}
	return head
}

// ListFromPB converts a list iteratively, failing past max nodes.
func ListFromPB(n *pb.TestNode, max int) (*wstest.Node, error) {
	var head, tail *wstest.Node
	for c := 0; n != nil; n, c = n.Next, c+1 {
		if c >= max {
			return nil, fmt.Errorf("%w: list has more than %d nodes", wstest.ErrTooMany, max)
		}
		x := &wstest.Node{I: n.I, F: n.F, S: n.S}
		if head == nil {
			head = x
		} else {
			tail.Next = x
		}
		tail = x
	}
	return head, nil
}

// SyntheticToPB converts a synthetic.
func SyntheticToPB(s *wstest.Synthetic) *pb.Synthetic {
	if s == nil {
		return nil
	}
	out := &pb.Synthetic{Strng: s.Strng, Barray: s.Barray}
	if s.Strct != nil {
		out.Strct = &pb.TestStruct{I: s.Strct.I, F: s.Strct.F, S: s.Strct.S}
	}
	return out
}

// SyntheticFromPB converts a synthetic.
func SyntheticFromPB(s *pb.Synthetic) *wstest.Synthetic {
	if s == nil {
		return nil
	}
	out := &wstest.Synthetic{Strng: s.Strng, Barray: s.Barray}
	if s.Strct != nil {
		out.Strct = &wstest.Struct{I: s.Strct.I, F: s.Strct.F, S: s.Strct.S}
	}
	return out
}

func addrToPB(a *wstest.Address) *pb.Address {
	return &pb.Address{FirstName: a.FirstName, LastName: a.LastName, Address1: a.Address1, Address2: a.Address2, City: a.City, State: a.State, Zip: a.Zip}
}

func addrFromPB(a *pb.Address) wstest.Address {
	return wstest.Address{FirstName: a.GetFirstName(), LastName: a.GetLastName(), Address1: a.GetAddress1(), Address2: a.GetAddress2(), City: a.GetCity(), State: a.GetState(), Zip: a.GetZip()}
}

// OrderToPB converts an order.
func OrderToPB(o *wstest.Order) *pb.Order {
	c := &o.Customer
	out := &pb.Order{
		OrderId: o.OrderId, OrderStatus: o.OrderStatus, OrderDate: timestamppb.New(o.OrderDate),
		OrderTotalAmountCents: int64(o.OrderTotalAmount),
		Customer: &pb.Customer{CustomerId: c.CustomerId, ContactFirstName: c.ContactFirstName, ContactLastName: c.ContactLastName,
			ContactPhone: c.ContactPhone, LastActivityDate: timestamppb.New(c.LastActivityDate), CreditCardNumber: c.CreditCardNumber,
			CreditCardExpirationDate: c.CreditCardExpirationDate, BillingAddress: addrToPB(&c.BillingAddress), ShippingAddress: addrToPB(&c.ShippingAddress)},
		LineItems: make([]*pb.LineItem, len(o.LineItems)),
	}
	slab := make([]pb.LineItem, len(o.LineItems))
	for i := range o.LineItems {
		li := &o.LineItems[i]
		slab[i].OrderId, slab[i].ItemId, slab[i].ProductId = li.OrderId, li.ItemId, li.ProductId
		slab[i].ProductDescription, slab[i].OrderQuantity, slab[i].UnitPriceCents = li.ProductDescription, li.OrderQuantity, int64(li.UnitPrice)
		out.LineItems[i] = &slab[i]
	}
	return out
}

// OrderFromPB converts an order.
func OrderFromPB(o *pb.Order) *wstest.Order {
	if o == nil {
		return nil
	}
	c := o.GetCustomer()
	out := &wstest.Order{
		OrderId: o.OrderId, OrderStatus: o.OrderStatus, OrderDate: o.GetOrderDate().AsTime(),
		OrderTotalAmount: money.Cents(o.OrderTotalAmountCents),
		Customer: wstest.Customer{CustomerId: c.GetCustomerId(), ContactFirstName: c.GetContactFirstName(), ContactLastName: c.GetContactLastName(),
			ContactPhone: c.GetContactPhone(), LastActivityDate: c.GetLastActivityDate().AsTime(), CreditCardNumber: c.GetCreditCardNumber(),
			CreditCardExpirationDate: c.GetCreditCardExpirationDate(), BillingAddress: addrFromPB(c.GetBillingAddress()), ShippingAddress: addrFromPB(c.GetShippingAddress())},
		LineItems: make([]wstest.LineItem, len(o.LineItems)),
	}
	for i, li := range o.LineItems {
		out.LineItems[i] = wstest.LineItem{OrderId: li.GetOrderId(), ItemId: li.GetItemId(), ProductId: li.GetProductId(),
			ProductDescription: li.GetProductDescription(), OrderQuantity: li.GetOrderQuantity(), UnitPrice: money.Cents(li.GetUnitPriceCents())}
	}
	return out
}

// Client calls WSTest over gRPC. With a shared connection (NewClient) it is cheap to make one
// per goroutine; a per-call client (NewPerCallClient) dials a fresh connection for every call
// and closes it after, the 50-client methodology's "connection closed after every request".
type Client struct {
	stub pb.WSTestClient
	conn *grpc.ClientConn // owned, or nil
	addr string           // per-call mode when not empty
	lim  wstest.Limits
	last wstest.Exchange
}

var _ wstest.Client = (*Client)(nil)

// DialOptions are the options every client connection uses: plaintext (loopback or a trusted
// benchmark network) and a receive bound.
func DialOptions(lim wstest.Limits) []grpc.DialOption {
	lim = lim.OrDefault()
	return []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(int(lim.MaxBodyBytes)), grpc.MaxCallSendMsgSize(int(lim.MaxBodyBytes)))}
}

// Dial makes a connection to addr ("host:port"); share it among clients with NewClient.
func Dial(addr string, lim wstest.Limits) (*grpc.ClientConn, error) {
	if addr == "" {
		return nil, errors.New("empty gRPC address")
	}
	return grpc.NewClient(addr, DialOptions(lim)...)
}

// NewClient returns a client on a shared connection (not closed by Close).
func NewClient(conn grpc.ClientConnInterface, lim wstest.Limits) *Client {
	return &Client{stub: pb.NewWSTestClient(conn), lim: lim.OrDefault()}
}

// NewOwnClient dials its own connection to addr (closed by Close).
func NewOwnClient(addr string, lim wstest.Limits) (*Client, error) {
	conn, err := Dial(addr, lim)
	if err != nil {
		return nil, err
	}
	c := NewClient(conn, lim)
	c.conn = conn
	return c, nil
}

// NewPerCallClient returns a client that connects for each call and disconnects after it.
func NewPerCallClient(addr string, lim wstest.Limits) *Client {
	return &Client{addr: addr, lim: lim.OrDefault()}
}

// Last implements wstest.Client.
func (c *Client) Last() wstest.Exchange { return c.last }

// Close implements wstest.Client.
func (c *Client) Close() error {
	if c.conn != nil {
		return c.conn.Close()
	}
	return nil
}

// do runs one call: on the shared stub, or on a fresh connection in per-call mode.
func (c *Client) do(ctx context.Context, call func(pb.WSTestClient) (proto.Message, error)) error {
	stub := c.stub
	if c.addr != "" {
		conn, err := Dial(c.addr, c.lim)
		if err != nil {
			c.last = wstest.Exchange{}
			return err
		}
		defer conn.Close()
		stub = pb.NewWSTestClient(conn)
	}
	resp, err := call(stub)
	if err != nil {
		c.last = wstest.Exchange{}
		st, ok := status.FromError(err)
		if !ok {
			return err
		}
		switch st.Code() {
		case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled:
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err // transport trouble: nothing came back
		}
		// the server answered (gRPC carries errors in a 200 response's trailers)
		c.last.Status = 200
		return &wstest.RemoteError{Code: st.Code().String(), Message: st.Message()}
	}
	c.last = wstest.Exchange{Status: 200, Bytes: int64(proto.Size(resp))}
	return nil
}

// EchoVoid implements wstest.Client.
func (c *Client) EchoVoid(ctx context.Context) error {
	return c.do(ctx, func(s pb.WSTestClient) (proto.Message, error) { return s.EchoVoid(ctx, &pb.EchoVoidRequest{}) })
}

// EchoStruct implements wstest.Client.
func (c *Client) EchoStruct(ctx context.Context, in []wstest.Struct) ([]wstest.Struct, error) {
	var r *pb.EchoStructResponse
	err := c.do(ctx, func(s pb.WSTestClient) (m proto.Message, err error) {
		r, err = s.EchoStruct(ctx, &pb.EchoStructRequest{Array: StructsToPB(in)})
		return r, err
	})
	if err != nil {
		return nil, err
	}
	if err := c.lim.CheckItems("EchoStructResult", len(r.EchoStructResult)); err != nil {
		return nil, err
	}
	return StructsFromPB(r.EchoStructResult), nil
}

// EchoList implements wstest.Client.
func (c *Client) EchoList(ctx context.Context, in *wstest.Node) (*wstest.Node, error) {
	var r *pb.EchoListResponse
	err := c.do(ctx, func(s pb.WSTestClient) (m proto.Message, err error) {
		r, err = s.EchoList(ctx, &pb.EchoListRequest{List: ListToPB(in)})
		return r, err
	})
	if err != nil {
		return nil, err
	}
	return ListFromPB(r.EchoListResult, c.lim.MaxItems)
}

// EchoSynthetic implements wstest.Client.
func (c *Client) EchoSynthetic(ctx context.Context, in *wstest.Synthetic) (*wstest.Synthetic, error) {
	var r *pb.EchoSyntheticResponse
	err := c.do(ctx, func(s pb.WSTestClient) (m proto.Message, err error) {
		r, err = s.EchoSynthetic(ctx, &pb.EchoSyntheticRequest{Synth: SyntheticToPB(in)})
		return r, err
	})
	if err != nil {
		return nil, err
	}
	return SyntheticFromPB(r.EchoSyntheticResult), nil
}

// GetOrder implements wstest.Client.
func (c *Client) GetOrder(ctx context.Context, orderID, customerID, messageSize int32) (*wstest.Order, error) {
	var r *pb.GetOrderResponse
	err := c.do(ctx, func(s pb.WSTestClient) (m proto.Message, err error) {
		r, err = s.GetOrder(ctx, &pb.GetOrderRequest{OrderId: orderID, CustomerId: customerID, MessageSize: messageSize})
		return r, err
	})
	if err != nil {
		return nil, err
	}
	return OrderFromPB(r.GetOrderResult), nil
}
