// Package server wires a StockTrader process from its roles: the web tier (pages), the business
// services host (SOAP, REST, gRPC) and the order processor, over one database, with the web
// tier's access mode and the order processing mode as settings. All roles together are the
// monolith. `tradebench serve` and the embedded runs (`tradebench run`) start it through Start.
package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/tradebench/tradebench/internal/dsn"
	"github.com/tradebench/tradebench/internal/httpserve"
	"github.com/tradebench/tradebench/internal/logsafe"
	"github.com/tradebench/tradebench/internal/metrics"
	"github.com/tradebench/tradebench/internal/natsx"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/access"
	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/orders"
	"github.com/tradebench/tradebench/trade/remote/host"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
	"github.com/tradebench/tradebench/trade/store"
	_ "github.com/tradebench/tradebench/trade/store/all" // the sqlite and postgres drivers
	"github.com/tradebench/tradebench/trade/stream"
	"github.com/tradebench/tradebench/trade/web"
)

// Server is a running StockTrader process: any of the web tier, the services host and the
// order processor, over one database.
type Server struct {
	badQuotes atomic.Int64 // malformed messages on the quote subjects (stream.Bridge)
	cfg       Config
	roles     Roles
	log       *slog.Logger
	st        store.Store                // nil when no role here needs the database
	svc       *business.Service          // the in-process service, when this process has one
	sw        *access.Switch             // the web tier's service (web role)
	host      *host.Host                 // the services host (bsl role)
	ord       *orders.Running            // order processing (any async mode or the orders role)
	http      *http.Server               // the web tier (web role)
	quotes    *stream.Hub[*stream.Event] // live quote changes the web tier streams (web role)
	pub       *stream.Publisher          // where the in-process service reports moved quotes
	nc        *nats.Conn                 // the quote stream's broker connection, if any
	ln        net.Listener
	started   time.Time
	info      store.LoadInfo
	remote    remoteDataSet // a web tier without a database: its services host's data set
	metrics   *metrics.Registry
	metEP     *metrics.Endpoint // nil without cfg.MetricsListen

	done    chan struct{}
	serveMu sync.Mutex
	err     error // from Serve, other than ErrServerClosed

	closeOnce sync.Once
	closeErr  error
}

// Start opens the database (loading it first if cfg.LoadIfEmpty and it is empty) when a role
// needs it, and starts the roles cfg asks for: the order processing machinery, the services
// host, the web tier. It returns once every listener is bound; Close stops it.
func Start(ctx context.Context, cfg Config) (srv *Server, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.SetDefaults()
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	// every role logs through it: no value a client sent is logged longer than 200 bytes
	log = slog.New(logsafe.Handler(log.Handler()))
	cfg.Orders.Log = log
	wrote, err := cfg.resolveTokens(log)
	defer func() {
		if srv == nil {
			for _, f := range wrote {
				os.Remove(f) // a refused start leaves no token file behind
			}
		}
	}()
	if err != nil {
		return nil, err
	}
	serverTLS, err := cfg.setAuth()
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, roles: cfg.roles(), log: log, done: make(chan struct{}), started: time.Now()}
	s.metrics = metrics.NewRegistry()
	instrument := func(h http.Handler) http.Handler { return s.metrics.Instrument(h, serviceRoutes, serviceRoute) }
	cfg.Orders.HTTPMiddleware = instrument
	if cfg.needsDB() {
		if err := s.openStore(ctx); err != nil {
			return nil, err // openStore closed what it opened
		}
	}
	if err := s.startRoles(ctx, cfg.Orders, serverTLS, instrument); err != nil {
		s.stop(context.Background())
		return nil, err
	}
	return s, nil
}

// resolveTokens reads or writes the service and NATS token files the settings name, and
// returns the files this start created (for Start to remove if it fails).
func (c *Config) resolveTokens(log *slog.Logger) (wrote []string, err error) {
	for _, resolve := range []func(*slog.Logger) (string, error){c.resolveServiceToken, c.resolveNATSToken} {
		f, err := resolve(log)
		if f != "" {
			wrote = append(wrote, f)
		}
		if err != nil {
			return wrote, err
		}
	}
	return wrote, nil
}

// setAuth fills in how the tiers authenticate each other — the service token (a new one when
// none is set) and the mutual TLS files — for the order processing and the remote clients, and
// returns the TLS config the servers of this process present (nil without TLS).
func (c *Config) setAuth() (*tls.Config, error) {
	if c.ServiceToken == "" {
		c.ServiceToken = svcauth.NewToken()
	} else if err := svcauth.Validate(c.ServiceToken); err != nil {
		return nil, &setting.Error{Field: "ServiceToken", Err: err}
	}
	serverTLS, err := c.TLS.Server()
	if err != nil {
		return nil, &setting.Error{Field: "TLS", Err: err}
	}
	clientTLS, err := c.TLS.Client()
	if err != nil {
		return nil, &setting.Error{Field: "TLS", Err: err}
	}
	c.Orders.Auth = svcauth.Client{Token: c.ServiceToken, TLS: clientTLS}
	c.Orders.ServerTLS = serverTLS
	c.Remote.Auth = c.Orders.Auth
	return serverTLS, nil
}

// startRoles starts the roles over the open database in the order they depend on each other:
// the order processing and the in-process service, the quote stream they publish to, the
// services host over that service, the web tier over the host or the service, then the
// metrics endpoint. oc is the order processing's config, its middleware the metrics'
// instrument; serverTLS is what the host presents.
func (s *Server) startRoles(ctx context.Context, oc orders.Config, serverTLS *tls.Config, instrument func(http.Handler) http.Handler) error {
	if s.roles.Web {
		s.quotes = stream.NewHub[*stream.Event](0)
	}
	var local *stream.Hub[*stream.Event]
	if s.cfg.localServices() {
		local = s.quotes // a web tier over its own in-process service hears it directly
	}
	s.pub = stream.NewPublisher(local, s.log)
	if err := s.startOrders(ctx, oc); err != nil {
		return err
	}
	if err := s.connectQuotes(); err != nil {
		return err
	}
	s.metrics.MustRegister(s.malformedCounters()...)
	if s.roles.BSL {
		if err := s.startHost(ctx, serverTLS, instrument); err != nil {
			return fmt.Errorf("services host: %w", err)
		}
	}
	if s.roles.Web {
		if err := s.startWeb(ctx); err != nil {
			return err
		}
	}
	if s.cfg.MetricsListen != "" {
		var err error
		if s.metEP, err = metrics.Listen(ctx, s.cfg.MetricsListen, s.metrics, s.log); err != nil {
			return err
		}
	}
	return nil
}

// startOrders makes the in-process trade service where a role needs it and starts the order
// processing oc configures: with the services here, the mode's dispatcher (and the processor
// too with the orders role); with the orders role alone, a processor over every transport.
func (s *Server) startOrders(ctx context.Context, oc orders.Config) error {
	cfg, log := s.cfg, s.log
	var observe business.OrderObserver // a nil *orderMetrics in it would not be a nil interface
	if cfg.needsDB() {
		om := newOrderMetrics(string(oc.Mode))
		s.metrics.MustRegister(om.vecs...)
		observe = om
	}
	mkService := func(d business.OrderDispatcher) *business.Service {
		opts := cfg.Services
		opts.Observe, opts.Dispatch, opts.Quotes = observe, d, s.pub
		opts.OnCancel = func(o trade.Order, reason string) {
			log.Info("order cancelled", "order", o.OrderID, "account", o.AccountID, "reason", reason)
		}
		return business.New(s.st, opts)
	}
	var err error
	switch {
	case cfg.localServices():
		// The service places orders through the mode's dispatcher; with the orders role here
		// too, StartServices also runs the processor that completes them.
		s.ord, s.svc, err = orders.StartServices(ctx, oc, mkService, s.roles.Orders)
	case s.roles.Orders:
		// A processor on its own: it takes orders from every transport at once.
		s.svc = mkService(nil)
		s.ord, err = orders.StartProcessor(ctx, oc, s.svc, cfg.OrderHTTPListen, cfg.OrderGRPCListen)
	}
	if err != nil {
		return err
	}
	if s.ord != nil && !s.roles.Orders && oc.NATS == "" && oc.NATSPort <= 0 && (oc.Mode == orders.AsyncDurable || oc.Mode == orders.AsyncVolatile) {
		log.Warn("orders go to an embedded NATS server on a random port, and no order processor runs in this process: "+
			"start an orders-role process with Orders.NATS = "+s.ord.NATSURL+" (or give Orders.NATSPort a fixed port)", "nats", s.ord.NATSURL)
	}
	return nil
}

// startHost starts the services host over the in-process service; without a configured
// address it takes free loopback ports, which the web tier in this process finds (SetDefaults).
func (s *Server) startHost(ctx context.Context, serverTLS *tls.Config, instrument func(http.Handler) http.Handler) error {
	hl, gl := s.cfg.BSLListen, s.cfg.BSLGRPCListen
	if hl == "" {
		hl = "127.0.0.1:0"
	}
	if gl == "" {
		gl = "127.0.0.1:0"
	}
	var err error
	s.host, err = host.Start(ctx, s.svc, host.Config{HTTPListen: hl, GRPCListen: gl, Logger: s.log,
		Token: s.cfg.ServiceToken, TLS: serverTLS, Middleware: instrument})
	if err != nil {
		return err
	}
	s.metrics.MustRegister(callsCollector{s.host.Calls()})
	return nil
}

// connectQuotes carries quote changes over NATS when the deployment has a broker — the order
// mode's (embedded or --nats) or --nats in any mode: a process that changes quotes publishes
// them there, and a web tier subscribes to every symbol, so each web tier hears every change,
// its own included, exactly once. Without a broker, changes reach only a web tier in the same
// process.
func (s *Server) connectQuotes() error {
	url, token := s.cfg.Orders.NATS, s.cfg.Orders.NATSToken
	if s.ord != nil && s.ord.NATSURL != "" {
		url, token = s.ord.NATSURL, s.ord.NATSToken
	}
	if url == "" {
		if s.roles.Web && !s.cfg.localServices() {
			// serve's own words: this is the warning its operator reads at start
			s.log.Warn("quote changes from a remote services host need --nats (Orders.NATS): the trades execute in the services process, so " +
				"without a NATS broker shared with it (e.g. serve --role bsl --orders async-volatile --nats-port 4222, and --nats " +
				"nats://HOST:4222 here) this web tier's live quote streams never update")
		}
		return nil
	}
	if s.svc == nil && !s.roles.Web {
		return nil
	}
	nc, err := natsx.Connect(url, natsx.ConnectConfig{Name: "tradebench quotes", Token: token})
	if err != nil {
		return fmt.Errorf("live quotes: connect to NATS %s: %w", dsn.Redact(url), err)
	}
	s.nc = nc
	if s.roles.Web {
		if _, err := stream.Bridge(nc, s.quotes, s.log, &s.badQuotes); err != nil {
			return err
		}
	}
	if s.svc != nil {
		s.pub.Connect(nc)
	}
	return nil
}

func (s *Server) openStore(ctx context.Context) error {
	cfg, log := s.cfg, s.log
	st, err := store.Open(ctx, cfg.DB)
	if err != nil {
		return fmt.Errorf("open database %s: %w", dsn.Redact(cfg.DB), err)
	}
	s.st = st
	info, err := st.Loaded(ctx)
	if errors.Is(err, store.ErrNotLoaded) {
		if cfg.LoadIfEmpty == nil {
			st.Close()
			return fmt.Errorf("database %s is empty: %w", dsn.Redact(cfg.DB), store.ErrNotLoaded)
		}
		spec := *cfg.LoadIfEmpty
		log.Info("loading an empty database", "db", dsn.Redact(cfg.DB), "accounts", spec.Accounts, "quotes", spec.Quotes, "holdings", spec.Holdings)
		if err := st.Load(ctx, spec, cfg.LoadProgress); err != nil {
			st.Close()
			return fmt.Errorf("load %s: %w", dsn.Redact(cfg.DB), err)
		}
		info, err = st.Loaded(ctx)
	}
	if err != nil {
		st.Close()
		return fmt.Errorf("database %s: %w", dsn.Redact(cfg.DB), err)
	}
	s.info = info
	return nil
}

// startWeb builds the web tier over an access switch and starts serving it.
func (s *Server) startWeb(ctx context.Context) error {
	cfg, log := s.cfg, s.log
	ac := access.Config{HTTPAddr: cfg.BSL, GRPCAddr: cfg.BSLGRPC, Remote: cfg.Remote}
	if cfg.localServices() {
		// not an order processor's service: that one completes orders, it does not place them
		ac.Local = s.svc
	}
	if s.host != nil {
		// the web tier in front of its own services host calls it over loopback
		if ac.HTTPAddr == "" {
			ac.HTTPAddr = s.host.HTTPAddr()
		}
		if ac.GRPCAddr == "" {
			ac.GRPCAddr = s.host.GRPCAddr()
		}
	}
	sw, err := access.New(ac, cfg.Access)
	if err != nil {
		return fmt.Errorf("access mode: %w", err)
	}
	s.sw = sw
	opts := cfg.Web
	opts.Config, opts.Access, opts.Logger, opts.Quotes = s.Describe, s.switchable(), log, s.quotes
	h, err := web.New(sw, opts)
	if err != nil {
		return err
	}
	h = s.metrics.Instrument(h, web.Routes(), web.Route)
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("web tier: listen on %s: %w", cfg.Listen, err)
	}
	s.ln = ln
	s.http = httpserve.New(h, httpserve.Options{Logger: log})
	go func() {
		defer close(s.done)
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.serveMu.Lock()
			s.err = err
			s.serveMu.Unlock()
			log.Error("http server stopped", "err", err)
		}
	}()
	return nil
}

// switchable is the config page's access switch, or nil when switching is turned off.
func (s *Server) switchable() web.AccessSwitch {
	if s.cfg.FixedAccess {
		return nil
	}
	return s.sw
}

// Addr is the web tier's bound address (host:port), useful with port 0; "" without the web role.
func (s *Server) Addr() string {
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// URL is the base URL of the web application, e.g. http://127.0.0.1:8080.
func (s *Server) URL() string { return "http://" + s.Addr() }

// Service is the trade service the pages use (the access switch), or the in-process service
// in a process without the web role.
func (s *Server) Service() trade.Service {
	if s.sw != nil {
		return s.sw
	}
	return s.svc
}

// Metrics is the process's metrics registry (served at MetricsURL when cfg.MetricsListen is set).
func (s *Server) Metrics() *metrics.Registry { return s.metrics }

// MetricsURL is the Prometheus scrape URL, "" without cfg.MetricsListen.
func (s *Server) MetricsURL() string { return s.metEP.URL() }

// Access is the web tier's access switch (nil without the web role).
func (s *Server) Access() *access.Switch { return s.sw }

// QuoteStreams are the web tier's live quote hub counters (zero without the web role).
func (s *Server) QuoteStreams() stream.Stats {
	if s.quotes == nil {
		return stream.Stats{}
	}
	return s.quotes.Stats()
}

// Host is the services host (nil without the bsl role).
func (s *Server) Host() *host.Host { return s.host }

// Orders is the order processing this process runs (nil when it runs none).
func (s *Server) Orders() *orders.Running { return s.ord }

// Store is the open database (nil when no role here needs one).
func (s *Server) Store() store.Store { return s.st }

// Done is closed when the web tier has stopped serving (or the server was shut down).
func (s *Server) Done() <-chan struct{} { return s.done }

// Failed is closed when a part of the process stopped on its own: the services host's
// listener or the order processing (nil channel, never closed, for parts this process does
// not run). Err says why.
func (s *Server) Failed() <-chan struct{} {
	var hostFailed <-chan struct{}
	if s.host != nil {
		hostFailed = s.host.Failed()
	}
	ordFailed := s.ord.Failed()
	if hostFailed == nil {
		return ordFailed
	}
	if ordFailed == nil {
		return hostFailed
	}
	c := make(chan struct{})
	go func() {
		select {
		case <-hostFailed:
		case <-ordFailed:
		case <-s.done:
			return
		}
		close(c)
	}()
	return c
}

// Err is why serving stopped on its own (nil after a Close).
func (s *Server) Err() error {
	s.serveMu.Lock()
	defer s.serveMu.Unlock()
	if s.err == nil && s.host != nil {
		if err := s.host.Err(); err != nil {
			return err
		}
	}
	if s.err == nil {
		return s.ord.Err()
	}
	return s.err
}

// LogLoadProgress is a LoadProgress that logs every tenth of the load on log, in a server's
// one log style (serve's --load-if-empty).
func LogLoadProgress(log *slog.Logger) func(done, total int64) {
	last := int64(-1)
	return func(done, total int64) {
		if tenth := done * 10 / max(total, 1); tenth != last {
			last = tenth
			log.Info("loading", "percent", tenth*10, "rows", done, "of", total)
		}
	}
}

// ShutdownWait bounds how long Wait lets requests in flight finish.
const ShutdownWait = 15 * time.Second

// Wait serves until ctx ends (SIGINT, SIGTERM), the server is done, or a part of it fails, then
// shuts it down (requests in flight get ShutdownWait) and returns why it stopped: the failed
// part's error, or nil.
func (s *Server) Wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
		s.log.Info("shutting down")
	case <-s.Done():
	case <-s.Failed():
		s.log.Error("a part of this process stopped; shutting down", "err", s.Err())
	}
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownWait)
	defer cancel()
	err := s.Err()
	if serr := s.Shutdown(sctx); serr != nil {
		return fmt.Errorf("shutdown: %w", serr)
	}
	return err
}

// Shutdown stops accepting connections, waits for requests in flight until ctx ends (then
// drops them), stops the services host and the order processing, and closes the database.
func (s *Server) Shutdown(ctx context.Context) error {
	s.closeOnce.Do(func() { s.closeErr = s.stop(ctx) })
	return s.closeErr
}

// stop tears down whatever was started, outermost first.
func (s *Server) stop(ctx context.Context) error {
	var errs []error
	errs = append(errs, s.metEP.Close())
	if s.http != nil {
		err := s.http.Shutdown(ctx)
		if err != nil {
			s.http.Close()
		}
		<-s.done
		errs = append(errs, err)
	} else {
		close(s.done)
	}
	if s.sw != nil {
		errs = append(errs, s.sw.Close())
	}
	if s.host != nil {
		errs = append(errs, s.host.Close())
	}
	if s.nc != nil {
		s.nc.Drain() // publishes in flight reach the broker before the process ends
	}
	s.ord.Close()
	if s.st != nil {
		errs = append(errs, s.st.Close())
	}
	return errors.Join(errs...)
}

// Close is Shutdown with a 10 second grace period.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.Shutdown(ctx)
}
