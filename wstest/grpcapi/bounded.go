package grpcapi

import (
	"context"
	"iter"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	grpcproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/tradebench/tradebench/wstest"
	pb "github.com/tradebench/tradebench/wstest/wstestpb"
)

// Items are counted before a request is decoded. An empty TestStruct is 2 bytes on the wire and
// ~70 decoded, so a message within the receive limit can carry millions of items, and
// proto.Unmarshal would build them all (~40x the message) before a handler could count them.
// Interceptors run after decoding, so they cannot help; nor can a lower receive limit, as one
// item may legitimately carry a string of megabytes. So the service is registered with its own
// method table (serviceDesc) whose handlers decode through boundedCodec: it counts the items in
// the wire bytes with protowire, which allocates nothing, and unmarshals only within the limit.
// Over it, the handler answers InvalidArgument, as for any other bad argument; the codec cannot
// answer itself because gRPC reports every codec error as Internal.

// boundedCodec is gRPC's protobuf codec, which also decodes a boundedRequest.
type boundedCodec struct{ encoding.CodecV2 }

// boundedRequest asks boundedCodec to decode msg if it holds at most lim.MaxItems items; err
// says why it did not.
type boundedRequest struct {
	msg proto.Message
	lim wstest.Limits
	err error
}

func newBoundedCodec() boundedCodec {
	return boundedCodec{encoding.GetCodecV2(grpcproto.Name)}
}

func (c boundedCodec) Unmarshal(data mem.BufferSlice, v any) error {
	r, ok := v.(*boundedRequest)
	if !ok {
		return c.CodecV2.Unmarshal(data, v)
	}
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	defer buf.Free()
	b := buf.ReadOnlyData()
	if r.err = checkItems(b, r.msg, r.lim); r.err != nil {
		return nil // the handler answers, with the right code
	}
	return proto.Unmarshal(b, r.msg)
}

var (
	arrayField = fieldNumber(&pb.EchoStructRequest{}, "array")
	listField  = fieldNumber(&pb.EchoListRequest{}, "list")
	nextField  = fieldNumber(&pb.TestNode{}, "next")
)

func fieldNumber(m proto.Message, name protoreflect.Name) protowire.Number {
	return m.ProtoReflect().Descriptor().Fields().ByName(name).Number()
}

// checkItems counts, in a request's wire bytes b, the messages decoding it would build one each
// of, and refuses more than lim.MaxItems.
func checkItems(b []byte, msg proto.Message, lim wstest.Limits) error {
	switch msg.(type) {
	case *pb.EchoStructRequest:
		n := 0
		for range messages(b, arrayField) {
			if n++; n > lim.MaxItems {
				break
			}
		}
		return lim.CheckItems("array", n)
	case *pb.EchoListRequest:
		return lim.CheckItems("list", countNodes(b, lim.MaxItems))
	}
	return nil
}

// countNodes counts the TestNodes in an EchoListRequest, stopping past max. Every occurrence of a
// node counts, not only the chain through the last next: protobuf merges repeated occurrences of
// a message field, and merging a million of them costs a million decodes. The walk is iterative:
// the nodes found but not yet read are a stack, bounded by the count.
func countNodes(b []byte, max int) int {
	var small [4][]byte
	todo := small[:0]
	n := 0
	for m := range messages(b, listField) {
		if n++; n > max {
			return n
		}
		todo = append(todo, m)
	}
	for len(todo) > 0 {
		m := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for next := range messages(m, nextField) {
			if n++; n > max {
				return n
			}
			todo = append(todo, next)
		}
	}
	return n
}

// messages yields each occurrence of the length-delimited field num at the top level of b. It
// stops at a malformed field: proto.Unmarshal refuses the message after.
func messages(b []byte, num protowire.Number) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for len(b) > 0 {
			n, typ, l := protowire.ConsumeTag(b)
			if l < 0 {
				return
			}
			b = b[l:]
			if n == num && typ == protowire.BytesType {
				v, l := protowire.ConsumeBytes(b)
				if l < 0 || !yield(v) {
					return
				}
				b = b[l:]
				continue
			}
			if l = protowire.ConsumeFieldValue(n, typ, b); l < 0 {
				return
			}
			b = b[l:]
		}
	}
}

// serviceDesc is the WSTest service with handlers that decode through boundedCodec. It is written
// out rather than copied from pb.WSTest_ServiceDesc, which the generator says not to modify.
var serviceDesc = grpc.ServiceDesc{
	ServiceName: serviceName(pb.WSTest_EchoVoid_FullMethodName),
	HandlerType: (*pb.WSTestServer)(nil),
	Methods: []grpc.MethodDesc{
		method(pb.WSTest_EchoVoid_FullMethodName, (*Server).EchoVoid),
		method(pb.WSTest_EchoStruct_FullMethodName, (*Server).EchoStruct),
		method(pb.WSTest_EchoList_FullMethodName, (*Server).EchoList),
		method(pb.WSTest_EchoSynthetic_FullMethodName, (*Server).EchoSynthetic),
		method(pb.WSTest_GetOrder_FullMethodName, (*Server).GetOrder),
	},
	Metadata: "wstest.proto",
}

// serviceName is "pkg.Service" of "/pkg.Service/Method".
func serviceName(full string) string { return full[1:strings.LastIndexByte(full, '/')] }

// method is a handler like a generated one, but decoding through boundedCodec.
func method[Req any, PReq interface {
	*Req
	proto.Message
}, Resp any](full string, call func(*Server, context.Context, PReq) (Resp, error)) grpc.MethodDesc {
	handler := func(srv any, ctx context.Context, dec func(any) error, ic grpc.UnaryServerInterceptor) (any, error) {
		s := srv.(*Server)
		in := PReq(new(Req))
		r := boundedRequest{msg: in, lim: s.lim}
		if err := dec(&r); err != nil {
			return nil, err
		}
		if r.err != nil {
			return nil, status.Error(codes.InvalidArgument, r.err.Error())
		}
		if ic == nil {
			return call(s, ctx, in)
		}
		info := &grpc.UnaryServerInfo{Server: srv, FullMethod: full}
		return ic(ctx, in, info, func(ctx context.Context, req any) (any, error) { return call(s, ctx, req.(PReq)) })
	}
	return grpc.MethodDesc{MethodName: full[strings.LastIndexByte(full, '/')+1:], Handler: handler}
}
