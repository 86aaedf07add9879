// Package httpserve builds the *http.Server of every server the kit starts (the StockTrader
// roles, the order processor's endpoints, wstest serve, cacheperf serve, agents' listeners), so
// none of them can be held open by a client that sends slowly, never finishes a body, or never
// reads its answer. A stock http.Server has no timeouts at all; one constructor means a new
// server cannot forget them.
package httpserve

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/grpclog"
	"google.golang.org/grpc/keepalive"

	"github.com/tradebench/tradebench/internal/logsafe"
)

// Defaults. They are generous for a benchmark (a request takes milliseconds) and short enough
// that a stalled or malicious client frees its connection in under a minute.
const (
	DefaultReadHeaderTimeout = 10 * time.Second  // request line and headers
	DefaultReadTimeout       = 30 * time.Second  // the whole request, headers and body
	DefaultWriteTimeout      = 60 * time.Second  // from the end of the headers to the end of the answer
	DefaultIdleTimeout       = 120 * time.Second // an idle keep-alive connection
	DefaultMaxHeaderBytes    = 64 << 10          // request line and headers
)

// Options overrides the defaults; a zero field keeps its default.
type Options struct {
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration
	MaxHeaderBytes    int
	// Logger receives the server's own errors (TLS handshakes, malformed requests) at Warn
	// level, at most logsafe.DefaultLimiter's rate per client (nil = slog.Default()).
	Logger *slog.Logger
}

// New returns an http.Server serving h with header, body-read, write and idle timeouts and
// bounded headers. The caller sets TLSConfig if it serves TLS, and calls Serve (or ServeTLS)
// and Shutdown as usual.
func New(h http.Handler, o Options) *http.Server {
	o.SetDefaults()
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: o.ReadHeaderTimeout,
		ReadTimeout:       o.ReadTimeout,
		WriteTimeout:      o.WriteTimeout,
		IdleTimeout:       o.IdleTimeout,
		MaxHeaderBytes:    o.MaxHeaderBytes,
		ErrorLog:          logsafe.ErrorLog(o.Logger.Handler(), slog.LevelWarn, logsafe.DefaultLimiter()),
	}
}

// SetDefaults fills the zero fields with the defaults (the header timeout never above the
// read timeout).
func (o *Options) SetDefaults() {
	if o.ReadHeaderTimeout <= 0 {
		o.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = DefaultReadTimeout
	}
	// the headers are part of the request: their own limit cannot be the longer one
	o.ReadHeaderTimeout = min(o.ReadHeaderTimeout, o.ReadTimeout)
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.MaxHeaderBytes <= 0 {
		o.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
}

// Limits of every gRPC server. A stream costs a goroutine and its buffers, so what one client
// can hold is bounded: streams per connection, connections per address (LimitPerClient), and
// how long a connection may stay idle or unresponsive.
const (
	DefaultGRPCMaxStreams      = 100              // concurrent streams per connection (grpc-go: unlimited)
	DefaultMaxConnsPerClient   = 64               // open connections per client address
	DefaultGRPCKeepaliveTime   = 60 * time.Second // ping a connection silent this long
	DefaultGRPCKeepaliveAnswer = 20 * time.Second // close it if the ping is not answered in this
)

// GRPCServerOptions are the same limits for every gRPC server the kit starts (the services
// host's, the order processor's, WSTest's): a connection must finish its handshake within the
// header timeout, holds at most DefaultGRPCMaxStreams streams at once (the client waits for
// more), sends headers of at most DefaultMaxHeaderBytes, is closed when idle for the idle
// timeout (clients reconnect on their next call) or when it stops answering pings, and may
// not ping more than every 10 s. grpc-go's defaults are 120 s, unlimited streams, 16 MB of
// headers and never. Serve them on a LimitPerClient listener.
func GRPCServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.ConnectionTimeout(DefaultReadHeaderTimeout),
		grpc.MaxConcurrentStreams(DefaultGRPCMaxStreams),
		grpc.MaxHeaderListSize(DefaultMaxHeaderBytes),
		grpc.KeepaliveParams(keepalive.ServerParameters{MaxConnectionIdle: DefaultIdleTimeout,
			Time: DefaultGRPCKeepaliveTime, Timeout: DefaultGRPCKeepaliveAnswer}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 10 * time.Second, PermitWithoutStream: true}),
	}
}

// LimitPerClient returns ln accepting at most n (≤ 0: DefaultMaxConnsPerClient) open
// connections from one IP address: a connection beyond that is closed as soon as it is
// accepted, before any byte is read, so one client cannot hold every connection a server
// can keep. (Clients share an address behind NAT; n is generous for a benchmark's clients.)
func LimitPerClient(ln net.Listener, n int) net.Listener {
	if n <= 0 {
		n = DefaultMaxConnsPerClient
	}
	return &perClient{Listener: ln, max: n, open: map[string]int{}}
}

type perClient struct {
	net.Listener
	max  int
	mu   sync.Mutex
	open map[string]int
}

func (l *perClient) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		host, _, _ := net.SplitHostPort(c.RemoteAddr().String())
		l.mu.Lock()
		ok := l.open[host] < l.max
		if ok {
			l.open[host]++
		}
		l.mu.Unlock()
		if !ok {
			_ = c.Close()
			continue
		}
		return &countedConn{Conn: c, release: func() {
			l.mu.Lock()
			if l.open[host]--; l.open[host] <= 0 {
				delete(l.open, host)
			}
			l.mu.Unlock()
		}}, nil
	}
}

type countedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// RouteGRPCLog sends grpc-go's own log through h: its errors only (its info and warnings are
// per-connection chatter), cleaned and at most logsafe.DefaultLimiter's rate per client, as
// every server's error log. grpclog's rule: call it once, before any gRPC server or client
// starts.
func RouteGRPCLog(h slog.Handler) {
	grpclog.SetLoggerV2(grpclog.NewLoggerV2(io.Discard, io.Discard, logsafe.ErrorLog(h, slog.LevelError, logsafe.DefaultLimiter()).Writer()))
}
