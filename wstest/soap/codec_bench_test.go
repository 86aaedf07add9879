package soap

import (
	"testing"

	"github.com/tradebench/tradebench/wstest"
)

// BenchmarkServerCodec is the server's whole SOAP work for one request without HTTP: decode the
// request envelope, encode the response.
//
//	go test -run '^$' -bench ServerCodec ./wstest/soap/
func BenchmarkServerCodec(b *testing.B) {
	for _, tc := range []struct {
		name string
		m    Message
	}{
		{"EchoVoid", Message{Op: wstest.EchoVoid}},
		{"EchoStruct-20", Message{Op: wstest.EchoStruct, Structs: wstest.MakeStructs(20)}},
		{"EchoList-20", Message{Op: wstest.EchoList, List: wstest.MakeList(20)}},
		{"EchoList-100", Message{Op: wstest.EchoList, List: wstest.MakeList(100)}},
		{"EchoSynthetic-1K", Message{Op: wstest.EchoSynthetic, Synth: wstest.MakeSynthetic(1024)}},
	} {
		req := AppendRequest(nil, &tc.m)
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(req)))
			b.ReportAllocs()
			var out []byte
			for b.Loop() {
				var m Message
				if err := DecodeRequest(req, wstest.Limits{}, &m); err != nil {
					b.Fatal(err)
				}
				out = AppendResponse(out[:0], &m)
			}
		})
	}
}
