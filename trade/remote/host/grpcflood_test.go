package host_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/tradebench/tradebench/internal/httpserve"
	"github.com/tradebench/tradebench/trade/remote/host"
	"github.com/tradebench/tradebench/trade/remote/internal/testenv"
	pb "github.com/tradebench/tradebench/trade/remote/tradepb"
)

// h2conn is a raw HTTP/2 client: it opens gRPC streams (headers only, no message) as the
// probe did, and reads what the server answers to each.
type h2conn struct {
	c   net.Conn
	fr  *http2.Framer
	dec *hpack.Decoder // the server's header table: one per connection
}

func dialH2(t *testing.T, addr string) *h2conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, http2.ClientPreface); err != nil {
		t.Fatal(err)
	}
	fr := http2.NewFramer(c, c)
	if err := fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	return &h2conn{c: c, fr: fr, dec: hpack.NewDecoder(4096, nil)}
}

// open sends the headers of a unary call on stream id, without END_STREAM and without a message.
func (h *h2conn) open(t *testing.T, id uint32, authorization string) {
	var buf bytes.Buffer
	enc := hpack.NewEncoder(&buf)
	for _, f := range [][2]string{{":method", "POST"}, {":scheme", "http"}, {":path", pb.TradeService_GetQuote_FullMethodName},
		{":authority", "127.0.0.1"}, {"content-type", "application/grpc"}, {"te", "trailers"}} {
		enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	if authorization != "" {
		enc.WriteField(hpack.HeaderField{Name: "authorization", Value: authorization})
	}
	if err := h.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: buf.Bytes(), EndHeaders: true}); err != nil {
		t.Fatal(err)
	}
}

// answers reads frames until want streams were answered (or 10 s pass) and returns how many
// were ended with grpc-status UNAUTHENTICATED and how many were refused (RST_STREAM
// REFUSED_STREAM: over the concurrent stream limit).
func (h *h2conn) answers(t *testing.T, want int) (unauth, refused int) {
	t.Helper()
	h.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	for unauth+refused < want {
		f, err := h.fr.ReadFrame()
		if err != nil {
			if ne := net.Error(nil); errors.As(err, &ne) && ne.Timeout() {
				return unauth, refused
			}
			t.Fatalf("reading answers: %v", err)
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				h.fr.WriteSettingsAck()
			}
		case *http2.PingFrame:
			if !f.IsAck() {
				h.fr.WritePing(true, f.Data)
			}
		case *http2.HeadersFrame:
			fs, err := h.dec.DecodeFull(f.HeaderBlockFragment())
			if err != nil {
				t.Fatalf("stream %d, end headers %v: %v (%d answered)", f.StreamID, f.HeadersEnded(), err, unauth+refused)
			}
			for _, hf := range fs {
				if hf.Name == "grpc-status" && hf.Value == "16" {
					unauth++
				}
			}
		case *http2.RSTStreamFrame:
			if f.ErrCode == http2.ErrCodeRefusedStream {
				refused++
			}
		}
	}
	return unauth, refused
}

// TestGRPCStreamsWithoutTokenHoldNothing: one connection opening streams (headers only, no
// token, no message) on the services host's gRPC port must not get a goroutine and buffers per
// stream (100,000 streams would hold 100,020 goroutines, 1.23 GB): each stream is refused
// UNAUTHENTICATED when its headers arrive and the server holds nothing for it; a caller with
// the token holds at most httpserve.DefaultGRPCMaxStreams streams per connection, and one
// address at most httpserve.DefaultMaxConnsPerClient connections.
// TRADEBENCH_GRPC_FLOOD=100000 runs the probe's count and logs goroutines and heap
// (docs/security.md).
// Mutants checked by hand: the token checked in interceptors instead of the tap handle →
// "1000 streams: 0 refused UNAUTHENTICATED, 900 RST_STREAM" (the stream limit refuses the
// rest and 100 handler goroutines wait); no grpc.MaxConcurrentStreams → "150 streams with the token: 0
// refused"; LimitPerClient not used → "connection 65 from one address was served".
func TestGRPCStreamsWithoutTokenHoldNothing(t *testing.T) {
	n := 2000
	if v := os.Getenv("TRADEBENCH_GRPC_FLOOD"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	svc := testenv.Service(t)
	h, err := host.Start(context.Background(), svc, host.Config{GRPCListen: "127.0.0.1:0", Token: token})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	addr := h.Info().GRPCAddr
	idleG, idleHeap := settle()

	c := dialH2(t, addr)
	sent := 0
	for id := uint32(1); sent < n; id += 2 {
		c.open(t, id, "")
		sent++
		if sent%1000 == 0 || sent == n { // read as we go, as a real client would
			if u, r := c.answers(t, min(1000, n-(sent-1)/1000*1000)); r != 0 || u == 0 {
				t.Fatalf("%d streams: %d refused UNAUTHENTICATED, %d RST_STREAM", sent, u, r)
			}
		}
	}
	g, heap := settle()
	t.Logf("%d unauthenticated streams on one connection: goroutines %d → %d, heap %.1f → %.1f MB", n, idleG, g, mb(idleHeap), mb(heap))
	if g > idleG+20 {
		t.Fatalf("after %d refused streams the process has %d goroutines, %d when idle", n, g, idleG)
	}

	// with the token: at most DefaultGRPCMaxStreams at once per connection, the rest refused
	const extra = 50
	a := dialH2(t, addr)
	for i := range httpserve.DefaultGRPCMaxStreams + extra {
		a.open(t, uint32(2*i+1), "Bearer "+token)
	}
	if _, r := a.answers(t, extra); r != extra {
		t.Fatalf("%d streams with the token: %d refused, want %d", httpserve.DefaultGRPCMaxStreams+extra, r, extra)
	}

	// connections per address: c and a are two, the next one beyond the limit is closed
	for range httpserve.DefaultMaxConnsPerClient - 2 {
		dialH2(t, addr)
	}
	last, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer last.Close()
	last.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(last, http2.ClientPreface) // may fail: the server may have closed it already
	http2.NewFramer(last, last).WriteSettings()
	if _, err := http2.NewFramer(last, last).ReadFrame(); !errors.Is(err, io.EOF) && !isReset(err) {
		t.Fatalf("connection %d from one address was served (%v)", httpserve.DefaultMaxConnsPerClient+1, err)
	}
}

func isReset(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && !op.Timeout()
}

func settle() (goroutines int, heap uint64) {
	var m runtime.MemStats
	for range 3 {
		runtime.GC()
		time.Sleep(50 * time.Millisecond)
	}
	runtime.ReadMemStats(&m)
	return runtime.NumGoroutine(), m.HeapInuse
}

func mb(b uint64) float64 { return float64(b) / (1 << 20) }
