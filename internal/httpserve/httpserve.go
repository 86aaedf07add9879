// Package httpserve builds the *http.Server of every server the kit starts (the StockTrader
// roles, the order processor's endpoints, wstest serve, cacheperf serve, agents' listeners), so
// none of them can be held open by a client that sends slowly, never finishes a body, or never
// reads its answer. A stock http.Server has no timeouts at all; one constructor means a new
// server cannot forget them.
package httpserve

import (
	"log/slog"
	"net/http"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
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
	// level (nil = slog.Default()).
	Logger *slog.Logger
}

// New returns an http.Server serving h with header, body-read, write and idle timeouts and
// bounded headers. The caller sets TLSConfig if it serves TLS, and calls Serve (or ServeTLS)
// and Shutdown as usual.
func New(h http.Handler, o Options) *http.Server {
	o = o.withDefaults()
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: o.ReadHeaderTimeout,
		ReadTimeout:       o.ReadTimeout,
		WriteTimeout:      o.WriteTimeout,
		IdleTimeout:       o.IdleTimeout,
		MaxHeaderBytes:    o.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(o.Logger.Handler(), slog.LevelWarn),
	}
}

func (o Options) withDefaults() Options {
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
	return o
}

// GRPCServerOptions are the same limits for every gRPC server the kit starts (the services
// host's, the order processor's, WSTest's): a connection must finish its handshake within the
// header timeout, and a connection idle for the idle timeout is closed (clients reconnect on
// their next call). grpc-go's defaults are 120 s and never.
func GRPCServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.ConnectionTimeout(DefaultReadHeaderTimeout),
		grpc.KeepaliveParams(keepalive.ServerParameters{MaxConnectionIdle: DefaultIdleTimeout}),
	}
}
