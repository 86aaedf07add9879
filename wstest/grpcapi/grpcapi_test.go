package grpcapi

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/tradebench/tradebench/internal/testing/alloctest"
	"github.com/tradebench/tradebench/wstest"
	pb "github.com/tradebench/tradebench/wstest/wstestpb"
)

// serve runs NewServer in process on an in-memory listener and returns a connection to it.
func serve(t *testing.T, lim wstest.Limits, opts ...grpc.ServerOption) *grpc.ClientConn {
	t.Helper()
	l := bufconn.Listen(1 << 20)
	s := NewServer(lim, opts...)
	go s.Serve(l)
	conn, err := grpc.NewClient("passthrough:///wstest",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return l.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(wstest.DefaultMaxBodyBytes), grpc.MaxCallSendMsgSize(wstest.DefaultMaxBodyBytes)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		s.Stop()
	})
	return conn
}

// rawCodec sends pre-encoded bytes, so a test can send what no well-behaved client would, without
// building millions of messages to marshal.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*[]byte) = data.Materialize()
	return nil
}

func (rawCodec) Name() string { return "proto" }

func invokeRaw(conn *grpc.ClientConn, method string, body []byte) error {
	var out []byte
	return conn.Invoke(context.Background(), method, &body, &out, grpc.ForceCodecV2(rawCodec{}))
}

// chain encodes an EchoListRequest whose list has n nodes.
func chain(t *testing.T, n int) []byte {
	var head *pb.TestNode
	for i := 0; i < n; i++ {
		head = &pb.TestNode{I: int32(i), Next: head}
	}
	b, err := proto.Marshal(&pb.EchoListRequest{List: head})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHostileMessagesBoundedMemory sends messages at the receive limit holding hundreds of
// times more items than the item limit. An empty TestStruct is 2 bytes on the wire and ~70
// decoded, so decoding first and counting after costs ~40x the message; each must be refused as
// InvalidArgument before it is decoded.
func TestHostileMessagesBoundedMemory(t *testing.T) {
	const size = wstest.DefaultMaxBodyBytes - 64
	empty := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), nil) // array: {}
	node := protowire.AppendBytes(protowire.AppendTag(nil, 4, protowire.BytesType), nil)  // next: {}
	// one node with a million next fields: protobuf merges them, but it is a million messages
	wide := protowire.AppendTag(nil, 1, protowire.BytesType)
	wide = protowire.AppendBytes(wide, bytes.Repeat(node, 1<<20))
	cases := []struct {
		name, method string
		body         []byte
		want         string
	}{
		{"empty structs", pb.WSTest_EchoStruct_FullMethodName, bytes.Repeat(empty, size/len(empty)), "array has more than"},
		{"list over the limit", pb.WSTest_EchoList_FullMethodName, chain(t, wstest.DefaultMaxItems+1), "list has more than"},
		{"list past protobuf's depth limit", pb.WSTest_EchoList_FullMethodName, chain(t, 12000), "list has more than"},
		{"merged next fields", pb.WSTest_EchoList_FullMethodName, wide, "list has more than"},
	}
	conn := serve(t, wstest.Limits{})
	if err := invokeRaw(conn, pb.WSTest_EchoVoid_FullMethodName, nil); err != nil { // warm up
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			alloc := alloctest.During(func() { err = invokeRaw(conn, tc.method, tc.body) })
			st, _ := status.FromError(err)
			if st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), "too many items") || !strings.Contains(st.Message(), tc.want) {
				t.Fatalf("got %v, want InvalidArgument: too many items ... %s", err, tc.want)
			}
			if limit := 4*uint64(len(tc.body)) + 4<<20; alloc > limit {
				t.Fatalf("a %d-byte message allocated %d bytes (limit %d)", len(tc.body), alloc, limit)
			}
			t.Logf("%d-byte message: %d bytes allocated", len(tc.body), alloc)
		})
	}
}

// TestItemLimitExact checks the limit admits what it allows and refuses one more, for each
// operation that carries items, through the real client.
func TestItemLimitExact(t *testing.T) {
	const max = 50
	conn := serve(t, wstest.Limits{MaxItems: max})
	c := NewClient(conn, wstest.Limits{MaxItems: max})
	ctx := context.Background()
	in := wstest.MakeStructs(max)
	if out, err := c.EchoStruct(ctx, in); err != nil || !wstest.EqualStructs(in, out) {
		t.Fatalf("EchoStruct-%d: %v", max, err)
	}
	l := wstest.MakeList(max)
	if out, err := c.EchoList(ctx, l); err != nil || !wstest.EqualList(l, out) {
		t.Fatalf("EchoList-%d: %v", max, err)
	}
	var re *wstest.RemoteError
	if _, err := c.EchoStruct(ctx, wstest.MakeStructs(max+1)); !errors.As(err, &re) || re.Code != "InvalidArgument" {
		t.Fatalf("EchoStruct-%d: %v", max+1, err)
	}
	if _, err := c.EchoList(ctx, wstest.MakeList(max+1)); !errors.As(err, &re) || re.Code != "InvalidArgument" {
		t.Fatalf("EchoList-%d: %v", max+1, err)
	}
	s := wstest.MakeSynthetic(100)
	if out, err := c.EchoSynthetic(ctx, s); err != nil || !wstest.EqualSynthetic(s, out) {
		t.Fatalf("EchoSynthetic: %v", err)
	}
	if err := c.EchoVoid(ctx); err != nil {
		t.Fatal(err)
	}
	o, err := c.GetOrder(ctx, 1, 2, max)
	if err != nil {
		t.Fatal(err)
	}
	if err := wstest.CheckOrder(o, 1, 2, max); err != nil {
		t.Fatal(err)
	}
	// malformed bytes are still refused by protobuf, after the count
	if err := invokeRaw(conn, pb.WSTest_EchoStruct_FullMethodName, []byte{0x0a, 0x05, 0x00}); status.Code(err) == codes.OK {
		t.Fatal("truncated message accepted")
	}
}

// TestServiceDesc checks the hand-written method table serves every method the proto declares,
// and calls interceptors the way generated handlers do.
func TestServiceDesc(t *testing.T) {
	var want, got []string
	for _, m := range pb.WSTest_ServiceDesc.Methods {
		want = append(want, m.MethodName)
	}
	for _, m := range serviceDesc.Methods {
		got = append(got, m.MethodName)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") || serviceDesc.ServiceName != pb.WSTest_ServiceDesc.ServiceName {
		t.Fatalf("service %s %v, want %s %v", serviceDesc.ServiceName, got, pb.WSTest_ServiceDesc.ServiceName, want)
	}
	var mu sync.Mutex
	var seen []string
	conn := serve(t, wstest.Limits{MaxItems: 5}, grpc.UnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		if _, ok := req.(proto.Message); !ok {
			t.Errorf("%s: interceptor got %T", info.FullMethod, req)
		}
		mu.Lock()
		seen = append(seen, info.FullMethod)
		mu.Unlock()
		return h(ctx, req)
	}))
	c := NewClient(conn, wstest.Limits{})
	ctx := context.Background()
	if out, err := c.EchoStruct(ctx, wstest.MakeStructs(5)); err != nil || len(out) != 5 {
		t.Fatalf("EchoStruct: %v", err)
	}
	if _, err := c.EchoStruct(ctx, wstest.MakeStructs(6)); err == nil {
		t.Fatal("EchoStruct over the limit accepted")
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(seen, ",") != pb.WSTest_EchoStruct_FullMethodName {
		t.Fatalf("interceptor saw %v (a refused request must not reach it)", seen)
	}
}
