// Package cacheperf is the CachePerf application: a web application that serves records holding
// large binary objects from a database through an in-process object cache (objcache), with the
// CachePerf paper's pages — the item page (name, content type and one random byte of the cached blob), the
// image itself, and the "other work" page that touches neither cache nor database.
package cacheperf

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/tradebench/tradebench/internal/httpserve"

	"github.com/tradebench/tradebench/cacheperf/blobstore"
	"github.com/tradebench/tradebench/cacheperf/objcache"
	"github.com/tradebench/tradebench/internal/bytesize"
	"github.com/tradebench/tradebench/internal/metrics"
)

// Config is how to run the application.
type Config struct {
	// DB is the store's DSN (sqlite:PATH or postgres://…). Ignored when Store is set.
	DB string
	// Store, if set, is used (and not closed) instead of opening DB.
	Store blobstore.Store
	// Cache configures the object cache (mode, byte budget, TTL, disk tier).
	Cache objcache.Config
	// Listen is the address to listen on (default 127.0.0.1:0, a random loopback port).
	Listen string
	// MetricsListen is where the Prometheus endpoint (/metrics) listens; empty serves none.
	MetricsListen string
	// SetMemoryLimit sets Go's memory limit from the cache's stated ceiling. It is
	// process-wide: the serve command sets it, tests and embedders may not want to.
	SetMemoryLimit bool
	// Log receives errors the pages cannot show (nil = discard).
	Log *slog.Logger
	// HTTP overrides the server's timeouts (zero fields: httpserve's defaults).
	HTTP httpserve.Options
}

// App is the application's state: its store, cache and request counters.
type App struct {
	st      blobstore.Store
	cache   *objcache.Cache
	log     *slog.Logger
	started time.Time

	itemReqs, imageReqs, otherReqs, badReqs atomic.Int64
}

// NewApp wires an application over an open store and cache.
func NewApp(st blobstore.Store, c *objcache.Cache, log *slog.Logger) *App {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &App{st: st, cache: c, log: log, started: time.Now()}
}

// Cache returns the application's cache.
func (a *App) Cache() *objcache.Cache { return a.cache }

// Server is a running application.
type Server struct {
	Addr string // host:port it listens on
	URL  string // http://host:port
	App  *App
	// Metrics is the server's registry (requests, the cache's statistics, Go and process);
	// MetricsURL its scrape URL ("" without MetricsListen).
	Metrics    *metrics.Registry
	MetricsURL string
	metEP      *metrics.Endpoint

	srv       *http.Server
	ownsStore bool
	done      chan struct{}
	err       error
	closed    atomic.Bool
}

// Start opens the store (unless given), builds the cache, and serves the application until ctx
// ends or Close is called. It returns once the listener is open, and its log gets one line
// saying where and with what cache it serves.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	st := cfg.Store
	owns := false
	if st == nil {
		if cfg.DB == "" {
			return nil, errors.New("no database: give a DSN (sqlite:PATH or postgres://…)")
		}
		var err error
		if st, err = blobstore.Open(ctx, cfg.DB); err != nil {
			return nil, err
		}
		owns = true
	}
	fail := func(err error) (*Server, error) {
		if owns {
			st.Close()
		}
		return nil, err
	}
	c, err := objcache.New(cfg.Cache, st)
	if err != nil {
		return fail(err)
	}
	if cfg.SetMemoryLimit {
		c.SetMemoryLimit()
	}
	listen := cfg.Listen
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		c.Close()
		return fail(fmt.Errorf("listen %s: %w", listen, err))
	}
	reg := metrics.NewRegistry()
	reg.MustRegister(cacheCollector{c})
	var ep *metrics.Endpoint
	if cfg.MetricsListen != "" {
		if ep, err = metrics.Listen(ctx, cfg.MetricsListen, reg, cfg.Log); err != nil {
			ln.Close()
			c.Close()
			return fail(err)
		}
	}
	app := NewApp(st, c, cfg.Log)
	ho := cfg.HTTP
	if ho.Logger == nil {
		ho.Logger = app.log
	}
	s := &Server{
		Addr: ln.Addr().String(), URL: "http://" + ln.Addr().String(), App: app, ownsStore: owns, done: make(chan struct{}),
		// httpserve's read timeout cuts a body sent too slowly (it had only a header timeout)
		srv: httpserve.New(app.Handler(), ho),
	}
	s.srv.Handler = reg.Instrument(s.srv.Handler, Routes, metrics.PatternRouter)
	s.Metrics, s.MetricsURL, s.metEP = reg, ep.URL(), ep
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.err = err
		}
	}()
	go func() {
		select {
		case <-ctx.Done():
			s.Close()
		case <-s.done:
		}
	}()
	// servers log in one style, slog's text lines, their start-up line included
	lim := c.Limits()
	attrs := []any{"url", s.URL + "/cacheperf/", "cache", c.Mode(), "budget", bytesize.Format(lim.Budget),
		"window", bytesize.Format(lim.Window), "ceiling", bytesize.Format(lim.Ceiling)}
	if s.MetricsURL != "" {
		attrs = append(attrs, "metrics", s.MetricsURL)
	}
	app.log.Info("cacheperf serving", attrs...)
	return s, nil
}

// Wait blocks until the server has stopped and returns why, if it failed.
func (s *Server) Wait() error {
	<-s.done
	return s.err
}

// Close stops the server (letting requests in flight finish for up to 5 s), then the cache and,
// if Start opened it, the blobstore.
func (s *Server) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		<-s.done
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := errors.Join(s.metEP.Close(), s.srv.Shutdown(ctx))
	<-s.done
	err = errors.Join(err, s.App.cache.Close())
	if s.ownsStore {
		err = errors.Join(err, s.App.st.Close())
	}
	return err
}
