package driver

import (
	"bytes"
	"context"
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cannedServer answers every request on a connection with the same small keep-alive response,
// allocating nothing per request, so a benchmark in the same process measures the client. It
// serves GETs only (a request ends at its blank line).
func cannedServer(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ln.Close() })
	resp := []byte("HTTP/1.1 200 OK\r\nDate: Tue, 24 Nov 2026 07:00:00 GMT\r\nContent-Length: 12\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nhello world\n")
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 8192)
				n := 0
				for {
					k, err := c.Read(buf[n:])
					if err != nil {
						return
					}
					n += k
					for {
						i := bytes.Index(buf[:n], []byte("\r\n\r\n"))
						if i < 0 {
							break
						}
						if _, err := c.Write(resp); err != nil {
							return
						}
						n = copy(buf, buf[i+4:n])
					}
					if n == len(buf) {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// BenchmarkQuickRequest is the driver's whole per-request cost in quick mode — templating the
// request, the HTTP/1.1 exchange over loopback, checks, HDR and per-second recording — with a
// server that costs next to nothing in the same process. One op is one request; allocs/op is
// the driver's (the server allocates nothing per request); cpu-ns/op is the process's CPU time
// per request, the server's share (one read and one write) included. Regressions in the hot
// path show here first:
//
//	go test -run XXX -bench QuickRequest -benchmem ./driver/
func BenchmarkQuickRequest(b *testing.B) {
	addr := cannedServer(b)
	for _, users := range []int{1, 50} {
		b.Run("users="+strconv.Itoa(users), func(b *testing.B) {
			iters := max(1, b.N/users)
			b.ReportAllocs()
			cpu0 := cpuTime()
			b.ResetTimer()
			res, err := Drive(context.Background(), Config{URL: "http://" + addr + "/hello", Phases: Phases{Users: users, Duration: time.Hour}, Iterations: iters}, HTTP)
			b.StopTimer()
			cpu := cpuTime() - cpu0
			if res == nil {
				b.Fatal(err)
			}
			if got := res.Total.Pass; got != int64(iters*users) || res.Total.Errors != 0 {
				b.Fatalf("passed %d of %d, %d errors", got, iters*users, res.Total.Errors)
			}
			// CPU time is what the driver spends, whatever else the machine is doing; wall time
			// (ns/op) is mostly waiting for the scheduler on a busy machine
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(iters*users), "cpu-ns/op")
		})
	}
}
