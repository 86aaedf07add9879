// Package host is the trade business services host (the `bsl` role): one process serving
// trade.Service over SOAP 1.1 (/soap/trade, WSDL at ?wsdl), REST/JSON (/api/v1/, OpenAPI at
// /api/v1/openapi.json) on one HTTP listener, and gRPC on its own listener, all at once, like
// the 2007 paper's self-hosted WCF service listening on every endpoint.
package host

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/tradebench/tradebench/internal/httpserve"

	ggrpc "google.golang.org/grpc"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/remote"
	"github.com/tradebench/tradebench/trade/remote/grpcapi"
	"github.com/tradebench/tradebench/trade/remote/rest"
	"github.com/tradebench/tradebench/trade/remote/soap"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
)

// Config configures a services host. The zero value of every field but the listen addresses
// means its default.
type Config struct {
	// HTTPListen is the TCP address of the SOAP and REST endpoints ("127.0.0.1:0" picks a free
	// port); empty disables them.
	HTTPListen string
	// GRPCListen is the TCP address of the gRPC endpoint; empty disables it.
	GRPCListen string

	// Processor serves completeOrder on every transport; nil uses the service itself when it
	// implements trade.OrderProcessor.
	Processor trade.OrderProcessor

	// MaxBodyBytes bounds a SOAP or REST request body (0 = each transport's default:
	// soap.DefaultMaxBodyBytes, rest.DefaultMaxBodyBytes).
	MaxBodyBytes int64
	// MaxRecvBytes bounds a gRPC request message (0 = grpcapi.DefaultMaxRecvBytes).
	MaxRecvBytes int
	// MaxHeaderBytes bounds HTTP request headers (0 = 64 KiB).
	MaxHeaderBytes int
	// ReadTimeout bounds reading one HTTP request, headers and body (0 = 30s), so a slow or
	// stalled client cannot hold a connection forever; IdleTimeout closes idle keep-alive
	// connections (0 = 2m).
	ReadTimeout, IdleTimeout time.Duration

	// Token is the service token every caller must send (svcauth): SOAP and REST callers as
	// "Authorization: Bearer TOKEN", gRPC callers as authorization metadata; others get 401
	// (SOAP: a Client fault with HTTP 401; gRPC: UNAUTHENTICATED) and nothing is done. Empty
	// turns the check off: server.Start always sets one.
	Token string
	// TLS, if set, serves every endpoint over TLS with this configuration (svcauth.TLSFiles:
	// mutual TLS, a client certificate required).
	TLS *tls.Config

	// Logger receives faults and panics (nil = slog.Default()).
	Logger *slog.Logger

	// Middleware, if set, wraps the SOAP/REST listener's handler (e.g. request metrics).
	Middleware func(http.Handler) http.Handler
}

// Info describes a running host for config pages and results files.
type Info struct {
	HTTPAddr     string   `json:"httpAddr,omitempty"`
	GRPCAddr     string   `json:"grpcAddr,omitempty"`
	SOAPURL      string   `json:"soapURL,omitempty"`
	WSDLURL      string   `json:"wsdlURL,omitempty"`
	RESTURL      string   `json:"restURL,omitempty"`
	OpenAPIURL   string   `json:"openAPIURL,omitempty"`
	Transports   []string `json:"transports"`
	MaxBodyBytes int64    `json:"maxBodyBytes"`
	MaxRecvBytes int      `json:"maxRecvBytes"`
	OrderProcess bool     `json:"completeOrder"` // whether completeOrder is served
}

// Host is a running services host.
type Host struct {
	cfg     Config
	httpSrv *http.Server
	grpcSrv *ggrpc.Server
	httpLn  net.Listener
	grpcLn  net.Listener
	proc    bool

	closeOnce sync.Once
	closeErr  error
	wg        sync.WaitGroup
	errMu     sync.Mutex
	serveErr  error
	done      chan struct{}
	failed    chan struct{} // closed when a listener stops serving on its own
	failOnce  sync.Once
	calls     Calls
}

// Handler returns the SOAP and REST endpoints on one handler (soap.Path and rest.Prefix), for
// a caller that serves them on its own HTTP server (e.g. the monolith).
func Handler(svc trade.Service, cfg Config) http.Handler {
	return handler(svc, cfg, nil)
}

// refuse answers a caller without the service token in its transport's format.
func refuse(w http.ResponseWriter, r *http.Request) {
	switch p := r.URL.Path; {
	case p == soap.Path:
		soap.WriteClientFault(w, http.StatusUnauthorized, svcauth.Refusal)
	case strings.HasPrefix(p, rest.Prefix):
		rest.WriteProblem(w, http.StatusUnauthorized, rest.CodeServiceToken, svcauth.Refusal)
	default:
		http.Error(w, "401 "+svcauth.Refusal, http.StatusUnauthorized)
	}
}

// handler is Handler counting the calls of each transport in calls (nil: not counted).
func handler(svc trade.Service, cfg Config, calls *Calls) http.Handler {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	soapSvc, soapProc, restSvc, restProc := svc, cfg.Processor, svc, cfg.Processor
	if calls != nil {
		soapSvc, soapProc = calls.Service(remote.SOAP, svc), calls.Processor(remote.SOAP, cfg.Processor)
		restSvc, restProc = calls.Service(remote.REST, svc), calls.Processor(remote.REST, cfg.Processor)
	}
	sh := soap.NewHandler(soapSvc, soap.HandlerOptions{Processor: soapProc, MaxBodyBytes: cfg.MaxBodyBytes, Logger: log})
	rh := rest.NewHandler(restSvc, rest.HandlerOptions{Processor: restProc, MaxBodyBytes: cfg.MaxBodyBytes, Logger: log})
	// Routed by prefix, not by http.ServeMux: the mux would clean "//" out of REST paths whose
	// user id segment is empty and redirect them. Only the health check needs no token.
	return svcauth.RequireHTTP(cfg.Token, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if k := r.Header.Get(trade.IdempotencyHeader); k != "" { // SOAP and REST carry it alike
			r = r.WithContext(trade.WithIdempotencyKey(r.Context(), k))
		}
		p := r.URL.Path
		switch {
		case p == soap.Path:
			sh.ServeHTTP(w, r)
		case strings.HasPrefix(p, rest.Prefix):
			rh.ServeHTTP(w, r)
		case p == "/healthz":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Write([]byte("ok\n"))
		case p == "/":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			fmt.Fprintf(w,
				"tradebench trade business services\n\nSOAP 1.1:  POST %s   (WSDL: GET %s?wsdl)\nREST/JSON: %s…        (OpenAPI: GET "+
					"%sopenapi.json)\ngRPC:      tradebench.trade.v1.TradeService on the host's gRPC port\n",
				soap.Path, soap.Path, rest.Prefix, rest.Prefix)
		default:
			http.Error(w, "404 not found: the services are at "+soap.Path+" (SOAP) and "+rest.Prefix+" (REST)", http.StatusNotFound)
		}
	}), refuse, "/healthz")
}

// Start listens on the configured addresses and serves svc until Close or until ctx ends.
// Listening errors (port taken, bad address) are returned at once.
func Start(ctx context.Context, svc trade.Service, cfg Config) (*Host, error) {
	if svc == nil {
		return nil, errors.New("host: nil trade.Service")
	}
	if cfg.HTTPListen == "" && cfg.GRPCListen == "" {
		return nil, errors.New("host: nothing to serve: set an HTTP (SOAP, REST) or gRPC listen address")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.MaxBodyBytes < 0 || cfg.MaxRecvBytes < 0 || cfg.MaxHeaderBytes < 0 {
		return nil, errors.New("host: negative size limit")
	}
	if cfg.MaxHeaderBytes == 0 {
		cfg.MaxHeaderBytes = 64 << 10
	}
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = 30 * time.Second
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 2 * time.Minute
	}
	if cfg.Processor == nil {
		cfg.Processor, _ = svc.(trade.OrderProcessor)
	}
	h := &Host{cfg: cfg, proc: cfg.Processor != nil, done: make(chan struct{}), failed: make(chan struct{})}
	var lc net.ListenConfig
	if cfg.HTTPListen != "" {
		ln, err := lc.Listen(ctx, "tcp", cfg.HTTPListen)
		if err != nil {
			return nil, fmt.Errorf("host: SOAP/REST listen on %s: %w", cfg.HTTPListen, err)
		}
		h.httpLn = ln
		h.httpSrv = httpserve.New(handler(svc, cfg, &h.calls), httpserve.Options{
			ReadTimeout: cfg.ReadTimeout, IdleTimeout: cfg.IdleTimeout, MaxHeaderBytes: cfg.MaxHeaderBytes, Logger: cfg.Logger})
		h.httpSrv.TLSConfig = cfg.TLS
	}
	if cfg.GRPCListen != "" {
		ln, err := lc.Listen(ctx, "tcp", cfg.GRPCListen)
		if err != nil {
			if h.httpLn != nil {
				h.httpLn.Close()
			}
			return nil, fmt.Errorf("host: gRPC listen on %s: %w", cfg.GRPCListen, err)
		}
		h.grpcLn = httpserve.LimitPerClient(ln, 0)
		h.grpcSrv = grpcapi.NewServer(h.calls.Service(remote.GRPC, svc), grpcapi.ServerOptions{
			Processor: h.calls.Processor(remote.GRPC, cfg.Processor), MaxRecvBytes: cfg.MaxRecvBytes, Logger: cfg.Logger,
			Extra: svcauth.GRPCServerOptions(cfg.Token, cfg.TLS)})
	}
	if h.httpSrv != nil && cfg.Middleware != nil {
		h.httpSrv.Handler = cfg.Middleware(h.httpSrv.Handler)
	}
	if h.httpSrv != nil {
		h.wg.Go(func() {
			serve := h.httpSrv.Serve
			if cfg.TLS != nil {
				serve = func(ln net.Listener) error { return h.httpSrv.ServeTLS(ln, "", "") }
			}
			if err := serve(h.httpLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
				h.fail(fmt.Errorf("host: SOAP/REST server: %w", err))
			}
		})
	}
	if h.grpcSrv != nil {
		h.wg.Go(func() {
			if err := h.grpcSrv.Serve(h.grpcLn); err != nil && !errors.Is(err, ggrpc.ErrServerStopped) {
				h.fail(fmt.Errorf("host: gRPC server: %w", err))
			}
		})
	}
	go func() {
		select {
		case <-ctx.Done():
			h.Close()
		case <-h.done:
		}
	}()
	return h, nil
}

func (h *Host) fail(err error) {
	h.errMu.Lock()
	if h.serveErr == nil {
		h.serveErr = err
	}
	h.errMu.Unlock()
	h.failOnce.Do(func() { close(h.failed) })
	h.cfg.Logger.Error("services host stopped serving", "err", err)
}

// Failed is closed when a listener stopped serving on its own (Err says why); a process that
// only hosts the services should then exit rather than sit there unreachable.
func (h *Host) Failed() <-chan struct{} { return h.failed }

// Calls counts the calls the host's endpoints passed to the service, per transport ("soap",
// "rest", "grpc") and operation.
func (h *Host) Calls() *Calls { return &h.calls }

// HTTPAddr is the SOAP/REST listener's address (host:port), "" if disabled.
func (h *Host) HTTPAddr() string {
	if h.httpLn == nil {
		return ""
	}
	return h.httpLn.Addr().String()
}

// GRPCAddr is the gRPC listener's address (host:port), "" if disabled.
func (h *Host) GRPCAddr() string {
	if h.grpcLn == nil {
		return ""
	}
	return h.grpcLn.Addr().String()
}

// Info describes the host's endpoints and limits.
func (h *Host) Info() Info {
	in := Info{
		MaxBodyBytes: h.cfg.MaxBodyBytes,
		MaxRecvBytes: h.cfg.MaxRecvBytes,
		OrderProcess: h.proc,
		Transports:   []string{},
	}
	if in.MaxRecvBytes == 0 {
		in.MaxRecvBytes = grpcapi.DefaultMaxRecvBytes
	}
	if a := h.HTTPAddr(); a != "" {
		in.HTTPAddr = a
		scheme := "http://"
		if h.cfg.TLS != nil {
			scheme = "https://"
		}
		in.SOAPURL = scheme + a + soap.Path
		in.WSDLURL = in.SOAPURL + "?wsdl"
		in.RESTURL = scheme + a + strings.TrimSuffix(rest.Prefix, "/")
		in.OpenAPIURL = scheme + a + rest.Prefix + "openapi.json"
		in.Transports = append(in.Transports, "soap", "rest")
	}
	if a := h.GRPCAddr(); a != "" {
		in.GRPCAddr = a
		in.Transports = append(in.Transports, "grpc")
	}
	return in
}

// Err reports why a listener stopped serving on its own (nil while serving or after Close).
func (h *Host) Err() error {
	h.errMu.Lock()
	defer h.errMu.Unlock()
	return h.serveErr
}

// Close stops the host: in-flight calls get up to 5 seconds to finish, then connections are
// cut. It is safe to call more than once.
func (h *Host) Close() error {
	h.closeOnce.Do(func() {
		close(h.done)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var errs []error
		if h.httpSrv != nil {
			if err := h.httpSrv.Shutdown(ctx); err != nil {
				errs = append(errs, h.httpSrv.Close())
			}
		}
		if h.grpcSrv != nil {
			stopped := make(chan struct{})
			go func() { h.grpcSrv.GracefulStop(); close(stopped) }()
			select {
			case <-stopped:
			case <-ctx.Done():
				h.grpcSrv.Stop()
				<-stopped
			}
		}
		h.wg.Wait()
		h.closeErr = errors.Join(errs...)
	})
	return h.closeErr
}
