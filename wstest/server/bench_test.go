package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tradebench/tradebench/wstest"
	"github.com/tradebench/tradebench/wstest/grpcapi"
	"github.com/tradebench/tradebench/wstest/jsonapi"
	"github.com/tradebench/tradebench/wstest/soap"
	pb "github.com/tradebench/tradebench/wstest/wstestpb"
)

// The benchmarks run real servers on loopback and drive them from parallel clients in the same
// process, so server and clients share the machine's cores. BenchmarkServer sends pre-encoded
// requests and only checks the status (what a load generator like wrk does): it measures the
// server's rate, next to a plain "Hello, World!" net/http handler measured the same way in the
// same run. BenchmarkClient runs the real clients, which encode, decode and check every echo.
//
//	go test -run '^$' -bench . -benchtime 2s ./wstest/server/

const benchParallelism = 4 // goroutines per GOMAXPROCS

func reqPerSec(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	b.ReportMetric(0, "ns/op")
}

func startHello(b *testing.B) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hello := []byte("Hello, World!")
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write(hello)
	})}
	go srv.Serve(l)
	b.Cleanup(func() { srv.Close() })
	return "http://" + l.Addr().String()
}

// rawHTTP drives one pre-encoded POST (or a GET when body is nil) from parallel lean clients.
func rawHTTP(b *testing.B, baseURL, path, contentType string, body []byte) {
	b.SetParallelism(benchParallelism)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		p, err := wstest.NewLeanPoster(baseURL, nil, false)
		if err != nil {
			b.Error(err)
			return
		}
		defer p.Close()
		req := &wstest.PostRequest{Path: path, ContentType: contentType, Body: body}
		for pb.Next() {
			st, resp, err := p.Post(context.Background(), req)
			if err != nil || st != 200 || len(resp) == 0 {
				b.Errorf("status %d err %v", st, err)
				return
			}
		}
	})
	reqPerSec(b)
}

type benchCase struct {
	name string
	soap soap.Message
	json jsonapi.Request
	op   wstest.Op
	grpc func(context.Context, pb.WSTestClient) error
}

func benchCases() []benchCase {
	s20 := wstest.MakeStructs(20)
	l20, l100 := wstest.MakeList(20), wstest.MakeList(100)
	ps20 := &pb.EchoStructRequest{Array: grpcapi.StructsToPB(s20)}
	pl20 := &pb.EchoListRequest{List: grpcapi.ListToPB(l20)}
	pl100 := &pb.EchoListRequest{List: grpcapi.ListToPB(l100)}
	return []benchCase{
		{name: "EchoVoid", op: wstest.EchoVoid, soap: soap.Message{Op: wstest.EchoVoid},
			grpc: func(ctx context.Context, c pb.WSTestClient) error {
				_, err := c.EchoVoid(ctx, &pb.EchoVoidRequest{})
				return err
			}},
		{name: "EchoStruct-20", op: wstest.EchoStruct, soap: soap.Message{Op: wstest.EchoStruct, Structs: s20}, json: jsonapi.Request{Array: s20},
			grpc: func(ctx context.Context, c pb.WSTestClient) error { _, err := c.EchoStruct(ctx, ps20); return err }},
		{name: "EchoList-20", op: wstest.EchoList, soap: soap.Message{Op: wstest.EchoList, List: l20}, json: jsonapi.Request{List: l20},
			grpc: func(ctx context.Context, c pb.WSTestClient) error { _, err := c.EchoList(ctx, pl20); return err }},
		{name: "EchoList-100", op: wstest.EchoList, soap: soap.Message{Op: wstest.EchoList, List: l100}, json: jsonapi.Request{List: l100},
			grpc: func(ctx context.Context, c pb.WSTestClient) error { _, err := c.EchoList(ctx, pl100); return err }},
	}
}

func BenchmarkServer(b *testing.B) {
	r := start(b, wstest.Limits{})
	hello := startHello(b)
	b.Run("Hello", func(b *testing.B) { rawHTTP(b, hello, "/", "text/plain", nil) })
	for _, bc := range benchCases() {
		body := soap.AppendRequest(nil, &bc.soap)
		b.Run("SOAP/"+bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			rawHTTP(b, base(r), soap.Path, "text/xml; charset=utf-8", body)
		})
	}
	for _, bc := range benchCases() {
		body, _ := json.Marshal(bc.json)
		b.Run("JSON/"+bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			rawHTTP(b, base(r), jsonapi.PathPrefix+bc.op.String(), "application/json", body)
		})
	}
	conn, err := grpcapi.Dial(r.GRPCAddr.String(), wstest.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	stub := pb.NewWSTestClient(conn)
	for _, bc := range benchCases() {
		b.Run("gRPC/"+bc.name, func(b *testing.B) {
			b.SetParallelism(benchParallelism)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(p *testing.PB) {
				for p.Next() {
					if err := bc.grpc(context.Background(), stub); err != nil {
						b.Error(err)
						return
					}
				}
			})
			reqPerSec(b)
		})
	}
	// a second Hello at the end brackets the run, so drift (other load on the machine) shows
	b.Run("Hello-again", func(b *testing.B) { rawHTTP(b, hello, "/", "text/plain", nil) })
}

// BenchmarkClient runs the full clients: request encoding, response decoding and the echo check.
func BenchmarkClient(b *testing.B) {
	r := start(b, wstest.Limits{})
	ctx := context.Background()
	conn, err := grpcapi.Dial(r.GRPCAddr.String(), wstest.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	encodings := []struct {
		name string
		mk   func() wstest.Client
	}{
		{"SOAP", func() wstest.Client {
			p, _ := wstest.NewLeanPoster(base(r), nil, false)
			return soap.NewClient(p, "", wstest.Limits{})
		}},
		{"JSON", func() wstest.Client {
			p, _ := wstest.NewLeanPoster(base(r), nil, false)
			return jsonapi.NewClient(p, wstest.Limits{})
		}},
		{"gRPC", func() wstest.Client { return grpcapi.NewClient(conn, wstest.Limits{}) }},
	}
	for _, enc := range encodings {
		for _, n := range []int{0, 20, 100} {
			name := fmt.Sprintf("%s/EchoList-%d", enc.name, n)
			if n == 0 {
				name = enc.name + "/EchoVoid"
			}
			in := wstest.MakeList(n)
			b.Run(name, func(b *testing.B) {
				b.SetParallelism(benchParallelism)
				b.ReportAllocs()
				b.ResetTimer()
				b.RunParallel(func(p *testing.PB) {
					c := enc.mk()
					defer c.Close()
					for p.Next() {
						if n == 0 {
							if err := c.EchoVoid(ctx); err != nil {
								b.Error(err)
								return
							}
							continue
						}
						out, err := c.EchoList(ctx, in)
						if err != nil || !wstest.EqualList(in, out) {
							b.Errorf("echo failed: %v", err)
							return
						}
					}
				})
				reqPerSec(b)
			})
		}
	}
}

// BenchmarkRatio measures SOAP EchoList-20 against the plain "Hello, World!" handler in
// alternating 100 ms phases (all client goroutines on one target, then all on the other), so
// other load on a shared machine hits both sides alike. Each b.N iteration is one pair of
// phases; run it with a fixed count:
//
//	go test -run '^$' -bench Ratio -benchtime 30x ./wstest/server/
func BenchmarkRatio(b *testing.B) {
	r := start(b, wstest.Limits{})
	hello := startHello(b)
	workers := benchParallelism * runtime.GOMAXPROCS(0)
	for _, bc := range benchCases() {
		if bc.name != "EchoList-20" && bc.name != "EchoVoid" && bc.name != "EchoList-100" {
			continue
		}
		body := soap.AppendRequest(nil, &bc.soap)
		b.Run("SOAP/"+bc.name, func(b *testing.B) {
			helloP := make([]*wstest.LeanPoster, workers)
			soapP := make([]*wstest.LeanPoster, workers)
			for i := range helloP {
				helloP[i], _ = wstest.NewLeanPoster(hello, nil, false)
				soapP[i], _ = wstest.NewLeanPoster(base(r), nil, false)
				defer helloP[i].Close()
				defer soapP[i].Close()
			}
			helloReq := &wstest.PostRequest{Path: "/", ContentType: "text/plain"}
			soapReq := &wstest.PostRequest{Path: soap.Path, ContentType: "text/xml; charset=utf-8", Body: body}
			var helloN, soapN int64
			var helloT, soapT time.Duration
			phase := func(ps []*wstest.LeanPoster, req *wstest.PostRequest) (int64, time.Duration) {
				var n atomic.Int64
				var wg sync.WaitGroup
				start := time.Now()
				deadline := start.Add(100 * time.Millisecond)
				for _, p := range ps {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for time.Now().Before(deadline) {
							if st, _, err := p.Post(context.Background(), req); err != nil || st != 200 {
								b.Errorf("status %d: %v", st, err)
								return
							}
							n.Add(1)
						}
					}()
				}
				wg.Wait()
				return n.Load(), time.Since(start)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				n, d := phase(helloP, helloReq)
				helloN, helloT = helloN+n, helloT+d
				n, d = phase(soapP, soapReq)
				soapN, soapT = soapN+n, soapT+d
			}
			hr, sr := float64(helloN)/helloT.Seconds(), float64(soapN)/soapT.Seconds()
			b.ReportMetric(hr, "hello-req/s")
			b.ReportMetric(sr, "soap-req/s")
			b.ReportMetric(sr/hr, "ratio")
			b.ReportMetric(0, "ns/op")
		})
	}
}
