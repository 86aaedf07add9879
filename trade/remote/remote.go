// Package remote selects a remote trade.Service client by access mode: the web tier calls
// Dial("soap"|"rest"|"grpc", addr, opts) and gets something that implements trade.Service
// exactly as the in-process service does, domain errors included. The servers live in the
// soap, rest and grpc subpackages and are hosted together by package host.
package remote

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/remote/grpcapi"
	"github.com/tradebench/tradebench/trade/remote/rest"
	"github.com/tradebench/tradebench/trade/remote/soap"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
)

// Access modes (web tier -> business services). InProcess is handled by the caller.
const (
	InProcess = "inprocess"
	SOAP      = "soap"
	REST      = "rest"
	GRPC      = "grpc"
)

// Accesses lists the access modes, in-process first.
func Accesses() []string { return []string{InProcess, SOAP, REST, GRPC} }

// Defaults.
const (
	DefaultTimeout         = 10 * time.Second
	DefaultMaxConnsPerHost = 256
	DefaultGRPCConns       = grpcapi.DefaultConns
)

// Options configures a remote client. Zero fields take the defaults.
type Options struct {
	// Timeout bounds every call, so a lost services host gives an error, never a hang
	// (0 = DefaultTimeout).
	Timeout time.Duration
	// MaxConnsPerHost is the SOAP/REST client's connection pool: at most this many connections
	// to the host, all kept idle for reuse (0 = DefaultMaxConnsPerHost). A small pool (the old
	// .NET default was 2) serialises a web tier's calls and ruins a benchmark.
	MaxConnsPerHost int
	// GRPCConns is how many HTTP/2 connections the gRPC client spreads calls over; each one
	// multiplexes any number of calls (0 = DefaultGRPCConns).
	GRPCConns int
	// Auth is what the client presents to the services host: its service token (sent with
	// every call) and, for mutual TLS, its TLS configuration.
	Auth svcauth.Client
}

// Client is a remote trade service: the service contract, the order processor's
// CompleteOrder, and Close to release connections.
type Client interface {
	trade.Service
	trade.OrderProcessor
	Close() error
}

// Settings describes a client for config pages and results files.
type Settings struct {
	Access          string `json:"access"`
	Addr            string `json:"addr"`
	Timeout         string `json:"timeout"`
	MaxConnsPerHost int    `json:"maxConnsPerHost,omitempty"`
	GRPCConns       int    `json:"grpcConns,omitempty"`
}

// Describe returns the effective settings Dial would use.
func Describe(access, addr string, opts Options) Settings {
	opts = opts.withDefaults()
	s := Settings{Access: access, Addr: addr, Timeout: opts.Timeout.String()}
	if access == GRPC {
		s.GRPCConns = opts.GRPCConns
	} else {
		s.MaxConnsPerHost = opts.MaxConnsPerHost
	}
	return s
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxConnsPerHost <= 0 {
		o.MaxConnsPerHost = DefaultMaxConnsPerHost
	}
	if o.GRPCConns <= 0 {
		o.GRPCConns = DefaultGRPCConns
	}
	return o
}

// Dial returns a client for access ("soap", "rest" or "grpc") of the services host at addr.
// For soap and rest, addr is the host's HTTP address (host:port or http://host:port); for
// grpc, its gRPC address (host:port). Connections are made lazily: Dial does not wait for the
// host, and calls fail fast while it is unreachable.
func Dial(access, addr string, opts Options) (Client, error) {
	opts = opts.withDefaults()
	switch strings.ToLower(access) {
	case SOAP:
		return soap.NewClient(httpAddr(addr, opts.Auth), soap.Options{Timeout: opts.Timeout, MaxConnsPerHost: opts.MaxConnsPerHost, Transport: HTTPTransport(opts)})
	case REST:
		return rest.NewClient(httpAddr(addr, opts.Auth), rest.Options{Timeout: opts.Timeout, MaxConnsPerHost: opts.MaxConnsPerHost, Transport: HTTPTransport(opts)})
	case GRPC:
		return grpcapi.NewClient(addr, grpcapi.Options{Timeout: opts.Timeout, Conns: opts.GRPCConns, Extra: opts.Auth.GRPCDialOptions()})
	case InProcess:
		return nil, fmt.Errorf("remote: access %q needs no client: use the in-process service", access)
	}
	return nil, fmt.Errorf("remote: unknown access mode %q: want one of soap, rest, grpc (or inprocess)", access)
}

// HTTPTransport is the SOAP and REST clients' connection pool for opts, with the service token
// on every request and TLS when opts.Auth has it; nil (the clients' own pool) when opts.Auth
// is empty. The order dispatchers and the smart client build their HTTP clients with it too.
func HTTPTransport(opts Options) http.RoundTripper {
	if opts.Auth == (svcauth.Client{}) {
		return nil
	}
	opts = opts.withDefaults()
	tr := rest.NewTransport(opts.MaxConnsPerHost, min(opts.Timeout, 5*time.Second))
	tr.TLSClientConfig = opts.Auth.TLS
	return opts.Auth.Transport(tr)
}

// httpAddr gives a bare host:port the scheme auth calls for (https with TLS).
func httpAddr(addr string, auth svcauth.Client) string {
	if addr == "" || strings.Contains(addr, "://") {
		return addr
	}
	return auth.Scheme() + "://" + addr
}
