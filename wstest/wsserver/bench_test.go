package wsserver

import (
	"context"
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
)

// The benchmarks run real servers on loopback and drive them from parallel clients in the same
// process, so server and clients share the machine's cores.
//
// BenchmarkEncodings compares SOAP, REST/JSON and gRPC the same way: each is driven by its real
// client, which encodes every request, decodes the response and checks the echo, and every
// client goroutine owns one kept-alive connection (HTTP/1.1 for SOAP and JSON, HTTP/2 for
// gRPC). The encodings and a plain "Hello, World!" net/http handler are measured in alternating
// 100 ms phases, so other load on a shared machine hits them all alike; read the ratios.
//
//	go test -run '^$' -bench Encodings -benchtime 20x ./wstest/wsserver/
//
// BenchmarkRatio measures the SOAP server the way a load generator like wrk does (pre-encoded
// requests, status checked) against the hello handler measured the same way.

const benchParallelism = 4 // goroutines per GOMAXPROCS

func startHello(b *testing.B) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hello := []byte("Hello, World!")
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write(hello)
	}), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(l)
	b.Cleanup(func() { srv.Close() })
	return "http://" + l.Addr().String()
}

// benchCase is one operation: its SOAP message (for the wrk-style ratio) and one checked call
// through a real client.
type benchCase struct {
	name string
	soap soap.Message
	call func(context.Context, wstest.Client) error
}

func benchCases() []benchCase {
	s20 := wstest.MakeStructs(20)
	l20, l100 := wstest.MakeList(20), wstest.MakeList(100)
	list := func(in *wstest.Node) func(context.Context, wstest.Client) error {
		return func(ctx context.Context, c wstest.Client) error {
			out, err := c.EchoList(ctx, in)
			if err == nil && !wstest.EqualList(in, out) {
				err = fmt.Errorf("EchoList: the echo differs from the request")
			}
			return err
		}
	}
	return []benchCase{
		{name: "EchoVoid", soap: soap.Message{Op: wstest.EchoVoid},
			call: func(ctx context.Context, c wstest.Client) error { return c.EchoVoid(ctx) }},
		{name: "EchoStruct-20", soap: soap.Message{Op: wstest.EchoStruct, Structs: s20},
			call: func(ctx context.Context, c wstest.Client) error {
				out, err := c.EchoStruct(ctx, s20)
				if err == nil && !wstest.EqualStructs(s20, out) {
					err = fmt.Errorf("EchoStruct: the echo differs from the request")
				}
				return err
			}},
		{name: "EchoList-20", soap: soap.Message{Op: wstest.EchoList, List: l20}, call: list(l20)},
		{name: "EchoList-100", soap: soap.Message{Op: wstest.EchoList, List: l100}, call: list(l100)},
	}
}

// phase runs every worker in a loop for 100 ms and returns the calls completed and the time.
func phase(b *testing.B, workers []func() error) (int64, time.Duration) {
	var n atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(100 * time.Millisecond)
	for _, w := range workers {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				if err := w(); err != nil {
					b.Error(err)
					return
				}
				n.Add(1)
			}
		})
	}
	wg.Wait()
	return n.Load(), time.Since(start)
}

// helloWorkers are n lean HTTP/1.1 posters, each on its own kept-alive connection, calling the
// hello handler and checking its status.
func helloWorkers(b *testing.B, url string, n int) []func() error {
	req := &wstest.PostRequest{Path: "/", ContentType: "text/plain"}
	ws := make([]func() error, n)
	for i := range ws {
		p, err := wstest.NewLeanPoster(url, nil, false)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { p.Close() })
		ws[i] = func() error {
			if st, _, err := p.Post(context.Background(), req); err != nil || st != 200 {
				return fmt.Errorf("hello: status %d: %v", st, err)
			}
			return nil
		}
	}
	return ws
}

func BenchmarkEncodings(b *testing.B) {
	r := start(b, wstest.Limits{})
	hello := startHello(b)
	workers := benchParallelism * runtime.GOMAXPROCS(0)
	// Each encoding's client owns its connection: a lean HTTP/1.1 poster, or a gRPC connection
	// dialled for it alone.
	encodings := []struct {
		name string
		mk   func() (wstest.Client, error)
	}{
		{"soap", func() (wstest.Client, error) {
			p, err := wstest.NewLeanPoster(base(r), nil, false)
			return soap.NewClient(p, "", wstest.Limits{}), err
		}},
		{"json", func() (wstest.Client, error) {
			p, err := wstest.NewLeanPoster(base(r), nil, false)
			return jsonapi.NewClient(p, wstest.Limits{}), err
		}},
		{"grpc", func() (wstest.Client, error) { return grpcapi.NewOwnClient(r.GRPCAddr.String(), wstest.Limits{}) }},
	}
	for _, bc := range benchCases() {
		b.Run(bc.name, func(b *testing.B) {
			sets := [][]func() error{helloWorkers(b, hello, workers)}
			for _, enc := range encodings {
				ws := make([]func() error, workers)
				for i := range ws {
					c, err := enc.mk()
					if err != nil {
						b.Fatal(err)
					}
					b.Cleanup(func() { c.Close() })
					ctx := context.Background()
					ws[i] = func() error {
						if err := bc.call(ctx, c); err != nil {
							return fmt.Errorf("%s %s: %w", enc.name, bc.name, err)
						}
						return nil
					}
				}
				sets = append(sets, ws)
			}
			calls := make([]int64, len(sets))
			took := make([]time.Duration, len(sets))
			b.ResetTimer()
			for range b.N {
				for i, ws := range sets {
					n, d := phase(b, ws)
					calls[i], took[i] = calls[i]+n, took[i]+d
				}
			}
			rate := func(i int) float64 { return float64(calls[i]) / took[i].Seconds() }
			b.ReportMetric(rate(0), "hello-req/s")
			for i, enc := range encodings {
				b.ReportMetric(rate(i+1), enc.name+"-req/s")
			}
			b.ReportMetric(rate(1)/rate(0), "soap/hello")
			b.ReportMetric(rate(1)/rate(3), "soap/grpc")
			b.ReportMetric(rate(2)/rate(3), "json/grpc")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkRatio measures the SOAP server against the plain "Hello, World!" handler the way a
// load generator like wrk does — pre-encoded requests, only the status checked, both sides
// alike — in alternating 100 ms phases (all client goroutines on one target, then all on the
// other), so other load on a shared machine hits both sides alike. Each b.N iteration is one
// pair of phases; run it with a fixed count:
//
//	go test -run '^$' -bench Ratio -benchtime 30x ./wstest/wsserver/
func BenchmarkRatio(b *testing.B) {
	r := start(b, wstest.Limits{})
	hello := startHello(b)
	workers := benchParallelism * runtime.GOMAXPROCS(0)
	for _, bc := range benchCases() {
		if bc.name == "EchoStruct-20" {
			continue
		}
		body := soap.AppendRequest(nil, &bc.soap)
		b.Run("SOAP/"+bc.name, func(b *testing.B) {
			helloW := helloWorkers(b, hello, workers)
			soapReq := &wstest.PostRequest{Path: soap.Path, ContentType: "text/xml; charset=utf-8", Body: body}
			soapW := make([]func() error, workers)
			for i := range soapW {
				p, err := wstest.NewLeanPoster(base(r), nil, false)
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { p.Close() })
				soapW[i] = func() error {
					if st, _, err := p.Post(context.Background(), soapReq); err != nil || st != 200 {
						return fmt.Errorf("SOAP %s: status %d: %v", bc.name, st, err)
					}
					return nil
				}
			}
			var helloN, soapN int64
			var helloT, soapT time.Duration
			b.ResetTimer()
			for range b.N {
				n, d := phase(b, helloW)
				helloN, helloT = helloN+n, helloT+d
				n, d = phase(b, soapW)
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
