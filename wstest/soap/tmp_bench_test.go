package soap

import (
	"testing"

	"github.com/tradebench/tradebench/wstest"
)

func BenchmarkTmpDecode(b *testing.B) {
	m0 := Message{Op: wstest.EchoList, List: wstest.MakeList(20)}
	req := AppendRequest(nil, &m0)
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			var m Message
			DecodeRequest(req, wstest.Limits{}, &m)
		}
	})
	b.Run("tokens", func(b *testing.B) {
		var s scanner
		n := 0
		for b.Loop() {
			s.reset(req, 100)
			var t token
			for {
				err := s.next(&t)
				if err != nil || t.kind == tEOF {
					break
				}
				n++
			}
		}
		b.ReportMetric(float64(n)/float64(b.N), "tok/op")
	})
	b.Run("encode", func(b *testing.B) {
		var out []byte
		for b.Loop() {
			out = AppendResponse(out[:0], &m0)
		}
	})
}
