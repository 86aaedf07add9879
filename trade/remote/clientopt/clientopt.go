// Package clientopt is the one options type of the remote trade.Service clients (SOAP, REST
// and gRPC): their call timeout, connection pools and credentials, with their defaults and
// checks in one place. Package remote re-exports it as remote.Options; the soap, rest and
// grpcapi clients take it directly.
package clientopt

import (
	"net"
	"net/http"
	"time"

	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
)

// Defaults.
const (
	// DefaultTimeout bounds every call, so a lost services host gives an error, never a hang.
	DefaultTimeout = 10 * time.Second
	// DefaultMaxConnsPerHost is generous on purpose: a client throttled to a couple of
	// connections per host (the old .NET default of 2) serialises a whole web tier's calls.
	DefaultMaxConnsPerHost = 256
	// DefaultGRPCConns is the number of HTTP/2 connections gRPC calls are spread over. One
	// connection multiplexes any number of concurrent calls, but a single connection is one TCP
	// stream with one reader and one writer goroutine per side: a few spread the work over cores.
	DefaultGRPCConns = 4
	// maxDialTimeout bounds the default connection set-up time of the HTTP clients.
	maxDialTimeout = 5 * time.Second
)

// Limits Validate enforces.
const (
	MaxMaxConnsPerHost = 100_000
	MaxGRPCConns       = 1024
)

// Options configures a remote client. Zero fields take the defaults (SetDefaults).
type Options struct {
	// Timeout bounds every call (0 = DefaultTimeout); a shorter context deadline wins.
	Timeout time.Duration
	// MaxConnsPerHost is the SOAP/REST client's connection pool: at most this many connections
	// to the host, all kept idle for reuse (0 = DefaultMaxConnsPerHost). A small pool (the old
	// .NET default was 2) serialises a web tier's calls and ruins a benchmark.
	MaxConnsPerHost int
	// GRPCConns is how many HTTP/2 connections the gRPC client spreads calls over; each one
	// multiplexes any number of calls (0 = DefaultGRPCConns).
	GRPCConns int
	// DialTimeout bounds establishing a connection (0 = min(Timeout, 5s) for SOAP and REST,
	// Timeout for gRPC).
	DialTimeout time.Duration
	// Auth is what the client presents to the services host: its service token (sent with
	// every call) and, for mutual TLS, its TLS configuration.
	Auth svcauth.Client
	// Transport replaces the SOAP/REST clients' HTTP transport (tests); the pool settings and
	// Auth are then its own.
	Transport http.RoundTripper
}

// SetDefaults fills the zero fields (DialTimeout stays zero: its default depends on the
// protocol, see DialTimeout). Negative values are left for Validate to refuse.
func (o *Options) SetDefaults() {
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxConnsPerHost == 0 {
		o.MaxConnsPerHost = DefaultMaxConnsPerHost
	}
	if o.GRPCConns == 0 {
		o.GRPCConns = DefaultGRPCConns
	}
}

// Validate reports a value no client can use: a *setting.Error names the field. Zero fields
// are their defaults.
func (o Options) Validate() error {
	switch {
	case o.Timeout < 0:
		return setting.Errorf("Timeout", "must be positive, got %v", o.Timeout)
	case o.DialTimeout < 0:
		return setting.Errorf("DialTimeout", "must be positive, got %v", o.DialTimeout)
	case o.MaxConnsPerHost < 0 || o.MaxConnsPerHost > MaxMaxConnsPerHost:
		return setting.Errorf("MaxConnsPerHost", "must be between 1 and %d, got %d", MaxMaxConnsPerHost, o.MaxConnsPerHost)
	case o.GRPCConns < 0 || o.GRPCConns > MaxGRPCConns:
		return setting.Errorf("GRPCConns", "must be between 1 and %d, got %d", MaxGRPCConns, o.GRPCConns)
	}
	return nil
}

// HTTPDialTimeout is the SOAP and REST clients' connection set-up bound: DialTimeout, or
// min(Timeout, 5s).
func (o Options) HTTPDialTimeout() time.Duration {
	if o.DialTimeout > 0 {
		return o.DialTimeout
	}
	o.SetDefaults()
	return min(o.Timeout, maxDialTimeout)
}

// HTTPTransport is the SOAP and REST clients' round tripper: Transport if set, else a pool
// (NewTransport) with TLS when Auth has it and the service token on every request. The order
// dispatchers and the smart client build their HTTP clients with it too.
func (o Options) HTTPTransport() http.RoundTripper {
	if o.Transport != nil {
		return o.Transport
	}
	o.SetDefaults()
	pool := NewTransport(o.MaxConnsPerHost, o.HTTPDialTimeout())
	pool.TLSClientConfig = o.Auth.TLS
	return o.Auth.Transport(pool)
}

// NewTransport is the pooled HTTP transport the REST and SOAP clients use: maxConns connections
// per host, all of them kept idle for reuse, keep-alives on.
func NewTransport(maxConns int, dialTimeout time.Duration) *http.Transport {
	d := &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}
	return &http.Transport{
		Proxy:                 nil, // loopback and LAN hosts: never through an environment proxy
		DialContext:           d.DialContext,
		MaxConnsPerHost:       maxConns,
		MaxIdleConnsPerHost:   maxConns,
		MaxIdleConns:          maxConns * 4,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   dialTimeout,
		ExpectContinueTimeout: time.Second,
		ForceAttemptHTTP2:     false,
	}
}
