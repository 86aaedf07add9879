package remote_test

import (
	"context"
	"testing"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/remote"
	"github.com/tradebench/tradebench/trade/remote/host"
	"github.com/tradebench/tradebench/trade/remote/internal/testenv"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
)

// BenchmarkGetQuote is the per-call latency of getQuote over each access mode, one caller at a
// time, against one real host over loopback TCP backed by the in-process service on SQLite:
//
//	go test -run '^$' -bench GetQuote -benchtime 2s ./trade/remote/
//
// The remote modes' extra cost over "inprocess" is the transport: encoding, the loopback round
// trip, decoding. The "+token" variants call a host that requires the service token.
func BenchmarkGetQuote(b *testing.B) {
	svc := testenv.Service(b)
	h := startHost(b, svc)
	ctx := context.Background()
	sym := testenv.Symbols[0]
	run := func(b *testing.B, s trade.Service) {
		if _, err := s.GetQuote(ctx, sym); err != nil { // connect and warm up
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.GetQuote(ctx, sym); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run(remote.InProcess, func(b *testing.B) { run(b, svc) })
	for _, access := range transports {
		b.Run(access, func(b *testing.B) { run(b, dial(b, h, access, remote.Options{})) })
	}
	th := startHostToken(b, svc)
	for _, access := range transports {
		b.Run(access+"+token", func(b *testing.B) {
			run(b, dial(b, th, access, remote.Options{Auth: svcauth.Client{Token: benchToken}}))
		})
	}
}

// benchToken is the service token of the "+token" sub-benchmarks: the same calls to a host
// that checks it, so the difference is the token's cost (a header, a hash, a compare).
const benchToken = "bench-service-token-0123456789abcdef"

func startHostToken(b *testing.B, svc trade.Service) *host.Host {
	h, err := host.Start(context.Background(), svc, host.Config{HTTPListen: "127.0.0.1:0", GRPCListen: "127.0.0.1:0", Token: benchToken})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close() })
	return h
}

// BenchmarkGetQuoteParallel is the same call from GOMAXPROCS×4 concurrent callers: throughput
// of the whole stack (ns/op is wall time per call across all callers).
func BenchmarkGetQuoteParallel(b *testing.B) {
	svc := testenv.Service(b)
	h := startHost(b, svc)
	ctx := context.Background()
	sym := testenv.Symbols[0]
	run := func(b *testing.B, s trade.Service) {
		if _, err := s.GetQuote(ctx, sym); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.SetParallelism(4)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := s.GetQuote(ctx, sym); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	b.Run(remote.InProcess, func(b *testing.B) { run(b, svc) })
	for _, access := range transports {
		b.Run(access, func(b *testing.B) { run(b, dial(b, h, access, remote.Options{})) })
	}
	th := startHostToken(b, svc)
	for _, access := range transports {
		b.Run(access+"+token", func(b *testing.B) {
			run(b, dial(b, th, access, remote.Options{Auth: svcauth.Client{Token: benchToken}}))
		})
	}
}
