// Package remote selects a remote trade.Service client by access mode: the web tier calls
// Dial("soap"|"rest"|"grpc", addr, opts) and gets something that implements trade.Service
// exactly as the in-process service does, domain errors included. The servers live in the
// soap, rest and grpc subpackages and are hosted together by package host.
package remote

import (
	"fmt"
	"strings"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/remote/clientopt"
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

// Options configures a remote client: the one options type of the SOAP, REST and gRPC
// clients (package clientopt). Zero fields take the defaults.
type Options = clientopt.Options

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
	opts.SetDefaults()
	s := Settings{Access: access, Addr: addr, Timeout: opts.Timeout.String()}
	if access == GRPC {
		s.GRPCConns = opts.GRPCConns
	} else {
		s.MaxConnsPerHost = opts.MaxConnsPerHost
	}
	return s
}

// Dial returns a client for access ("soap", "rest" or "grpc") of the services host at addr.
// For soap and rest, addr is the host's HTTP address (host:port or http://host:port); for
// grpc, its gRPC address (host:port). Connections are made lazily: Dial does not wait for the
// host, and calls fail fast while it is unreachable.
func Dial(access, addr string, opts Options) (Client, error) {
	switch strings.ToLower(access) {
	case SOAP:
		return soap.NewClient(httpAddr(addr, opts.Auth), opts)
	case REST:
		return rest.NewClient(httpAddr(addr, opts.Auth), opts)
	case GRPC:
		return grpcapi.NewClient(addr, opts)
	case InProcess:
		return nil, fmt.Errorf("remote: access %q needs no client: use the in-process service", access)
	}
	return nil, fmt.Errorf("remote: unknown access mode %q: want one of soap, rest, grpc (or inprocess)", access)
}

// httpAddr gives a bare host:port the scheme auth calls for (https with TLS).
func httpAddr(addr string, auth svcauth.Client) string {
	if addr == "" || strings.Contains(addr, "://") {
		return addr
	}
	return auth.Scheme() + "://" + addr
}
