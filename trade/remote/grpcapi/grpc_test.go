package grpcapi

import (
	"context"
	"net"
	"strings"
	"testing"

	ggrpc "google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/remote/internal/testenv"
	pb "github.com/tradebench/tradebench/trade/remote/tradepb"
)

// rawCodec sends and receives bytes as they are, to put malformed messages on the wire.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return *v.(*[]byte), nil }
func (rawCodec) Unmarshal(b []byte, v any) error {
	*v.(*[]byte) = append([]byte(nil), b...)
	return nil
}
func (rawCodec) Name() string { return "proto" }

func serve(t *testing.T, svc trade.Service) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(svc, ServerOptions{MaxRecvBytes: 8 << 10})
	go s.Serve(ln)
	t.Cleanup(s.Stop)
	return ln.Addr().String()
}

// TestHostile: malformed messages are INVALID_ARGUMENT, unknown methods UNIMPLEMENTED,
// oversized ones RESOURCE_EXHAUSTED; nothing reaches the database.
func TestHostile(t *testing.T) {
	svc := testenv.Service(t)
	addr := serve(t, svc)
	cc, err := ggrpc.NewClient("passthrough:///"+addr, ggrpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx := context.Background()
	before, _ := svc.GetAccountData(ctx, testenv.User)

	var buyUser []byte
	buyUser = protowire.AppendTag(buyUser, 1, protowire.BytesType)
	buyUser = protowire.AppendString(buyUser, testenv.User)
	buyUser = protowire.AppendTag(buyUser, 2, protowire.BytesType)
	buyUser = protowire.AppendString(buyUser, "s:1")

	invalidUTF8 := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), "\xff\xfe")
	invalidUTF8 = protowire.AppendVarint(protowire.AppendTag(invalidUTF8, 3, protowire.VarintType), 1)
	quantityAsText := protowire.AppendString(protowire.AppendTag(append([]byte(nil), buyUser...), 3, protowire.BytesType), "5")
	cases := []struct {
		name, method string
		msg          []byte
		code         codes.Code
	}{
		{"garbage", pb.TradeService_Buy_FullMethodName, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}, codes.InvalidArgument},
		{"truncated field", pb.TradeService_Buy_FullMethodName, buyUser[:len(buyUser)-2], codes.InvalidArgument},
		{"invalid UTF-8 string", pb.TradeService_Buy_FullMethodName, invalidUTF8, codes.InvalidArgument},
		// A known field with the wrong wire type is an unknown field to protobuf: quantity
		// stays 0 and the service refuses it.
		{"quantity with the wrong wire type", pb.TradeService_Buy_FullMethodName, quantityAsText, codes.InvalidArgument},
		{"oversized", pb.TradeService_GetQuotes_FullMethodName, protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType),
			strings.Repeat("s", 16<<10)), codes.ResourceExhausted},
		{"unknown method", "/tradebench.trade.v1.TradeService/DropTables", nil, codes.Unimplemented},
		{"unknown service", "/evil.Service/Buy", nil, codes.Unimplemented},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out []byte
			err := cc.Invoke(ctx, tc.method, &tc.msg, &out, ggrpc.ForceCodecV2(nil), ggrpc.ForceCodec(rawCodec{}))
			if st, _ := status.FromError(err); st.Code() != tc.code {
				t.Errorf("status %v, want %s", err, tc.code)
			}
		})
	}
	after, _ := svc.GetAccountData(ctx, testenv.User)
	if after != before {
		t.Errorf("hostile calls changed the account: %+v -> %+v", before, after)
	}
}

// TestDomainStatus: a domain error travels as the mapped status code with an ErrorInfo that
// the client turns back into the identical *trade.Error.
func TestDomainStatus(t *testing.T) {
	svc := testenv.Service(t)
	addr := serve(t, svc)
	c, err := NewClient(addr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	for code, call := range map[trade.Code]func(s trade.Service) error{
		trade.CodeNotFound:     func(s trade.Service) error { _, err := s.GetQuote(ctx, "nope"); return err },
		trade.CodeUnauthorized: func(s trade.Service) error { _, err := s.Login(ctx, testenv.User, "bad"); return err },
		trade.CodeInvalid:      func(s trade.Service) error { _, err := s.Buy(ctx, testenv.User, "s:1", 0); return err },
	} {
		gerr, werr := call(c), call(svc)
		g, w := trade.AsError(gerr), trade.AsError(werr)
		if g == nil || w == nil || *g != *w || g.Code != code {
			t.Errorf("%s: client %#v, service %#v", code, gerr, werr)
		}
		st := status.Convert(toStatus(werr))
		if st.Code() != StatusCode(code) || len(st.Details()) != 1 {
			t.Errorf("%s travels as %v with %d details", code, st.Code(), len(st.Details()))
		}
	}
}
