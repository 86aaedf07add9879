// Package wsserver runs the WSTest service in all three encodings at once: SOAP 1.1 and JSON on
// one HTTP listener, gRPC on another.
package wsserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/tradebench/tradebench/internal/httpserve"

	"google.golang.org/grpc"

	"github.com/tradebench/tradebench/internal/metrics"
	"github.com/tradebench/tradebench/wstest"
	"github.com/tradebench/tradebench/wstest/grpcapi"
	"github.com/tradebench/tradebench/wstest/jsonapi"
	"github.com/tradebench/tradebench/wstest/soap"
)

// Config is what `tradebench wstest serve` runs.
type Config struct {
	Listen     string // HTTP address for SOAP and JSON, e.g. ":8080"
	GRPCListen string // gRPC address; empty = no gRPC
	Limits     wstest.Limits
	Log        *slog.Logger
	// MetricsListen is where the Prometheus endpoint (/metrics) listens; empty serves none.
	MetricsListen string
}

// Routes are the HTTP side's ServeMux patterns, the route labels of its request metrics.
var Routes = []string{soap.Path, jsonapi.PathPrefix, "/{$}"}

// Handler returns the HTTP side: POST /wstest/soap (GET ?wsdl) and POST /wstest/json/{op}.
func Handler(lim wstest.Limits, log *slog.Logger) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(Routes[0], soap.NewHandler(lim, log))
	mux.Handle(Routes[1], jsonapi.NewHandler(lim, log))
	mux.HandleFunc(Routes[2], func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "tradebench WSTest service\n\nSOAP 1.1:  POST %s   (WSDL: GET %s?wsdl)\nJSON:      POST %s{EchoVoid,EchoStruct,EchoList,EchoSynthetic,GetOrder}\n", soap.Path, soap.Path, jsonapi.PathPrefix)
	})
	return mux
}

// Running is a started server.
type Running struct {
	HTTPAddr net.Addr
	GRPCAddr net.Addr // nil without gRPC
	// Metrics is the server's registry; MetricsURL its scrape URL ("" without MetricsListen).
	Metrics    *metrics.Registry
	MetricsURL string
	done       chan error
}

// Wait blocks until the server has stopped (its context ended) and returns why it failed, if it
// did.
func (r *Running) Wait() error { return <-r.done }

// Start listens on the configured addresses and serves until ctx ends, then shuts down
// gracefully (in-flight requests get up to 5 s). Limits out of bounds are a *setting.Error
// naming the field, before anything listens. Its log gets one line when it serves: where.
func Start(ctx context.Context, cfg Config) (*Running, error) {
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := cfg.Limits.Validate(); err != nil {
		return nil, err
	}
	lim := cfg.Limits.OrDefault()
	hl, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", cfg.Listen, err)
	}
	r := &Running{HTTPAddr: hl.Addr(), done: make(chan error, 1)}
	var gl net.Listener
	if cfg.GRPCListen != "" {
		if gl, err = net.Listen("tcp", cfg.GRPCListen); err != nil {
			hl.Close()
			return nil, fmt.Errorf("listen %s (gRPC): %w", cfg.GRPCListen, err)
		}
		r.GRPCAddr = gl.Addr()
	}
	hs := httpserve.New(Handler(lim, log), httpserve.Options{ReadTimeout: 60 * time.Second, Logger: log})
	gs := grpcapi.NewServer(lim)
	reg := metrics.NewRegistry()
	hs.Handler = reg.Instrument(hs.Handler, Routes, metrics.PatternRouter)
	r.Metrics = reg
	var ep *metrics.Endpoint
	if cfg.MetricsListen != "" {
		if ep, err = metrics.Listen(ctx, cfg.MetricsListen, reg, log); err != nil {
			hl.Close()
			if gl != nil {
				gl.Close()
			}
			return nil, err
		}
		r.MetricsURL = ep.URL()
	}
	errc := make(chan error, 2)
	go func() {
		if err := hs.Serve(hl); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errc <- fmt.Errorf("http: %w", err)
		}
	}()
	if gl != nil {
		go func() {
			if err := gs.Serve(httpserve.LimitPerClient(gl, 0)); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
				errc <- fmt.Errorf("grpc: %w", err)
			}
		}()
	}
	go func() {
		var ferr error
		select {
		case <-ctx.Done():
		case ferr = <-errc:
		}
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
		stopped := make(chan struct{})
		go func() { gs.GracefulStop(); close(stopped) }()
		select {
		case <-stopped:
		case <-sctx.Done():
			gs.Stop()
		}
		ep.Close()
		r.done <- ferr
	}()
	// servers log in one style, slog's text lines, their start-up line included
	attrs := []any{"soap", fmt.Sprintf("http://%s%s", r.HTTPAddr, soap.Path), "json", fmt.Sprintf("http://%s%s{op}", r.HTTPAddr, jsonapi.PathPrefix)}
	if r.GRPCAddr != nil {
		attrs = append(attrs, "grpc", r.GRPCAddr.String())
	}
	if r.MetricsURL != "" {
		attrs = append(attrs, "metrics", r.MetricsURL)
	}
	log.Info("wstest serving (WSDL at soap?wsdl; Ctrl-C stops)", attrs...)
	return r, nil
}
