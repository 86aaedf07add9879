// Package server wires a StockTrader process from its roles: the web tier (pages), the business
// services host (SOAP, REST, gRPC) and the order processor, over one database, with the web
// tier's access mode and the order processing mode as settings. All roles together are the
// monolith. `tradebench serve` and the embedded runs (`tradebench run`) start it through Start.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/tradebench/tradebench/internal/dsn"
	"github.com/tradebench/tradebench/internal/gctune"
	"github.com/tradebench/tradebench/internal/httpserve"
	"github.com/tradebench/tradebench/internal/logsafe"
	"github.com/tradebench/tradebench/internal/metrics"
	"github.com/tradebench/tradebench/internal/natsx"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/internal/version"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/access"
	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/orders"
	"github.com/tradebench/tradebench/trade/remote"
	"github.com/tradebench/tradebench/trade/remote/host"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
	"github.com/tradebench/tradebench/trade/store"
	_ "github.com/tradebench/tradebench/trade/store/all" // the sqlite and postgres drivers
	"github.com/tradebench/tradebench/trade/stream"
	"github.com/tradebench/tradebench/trade/web"
)

// Config configures a StockTrader process. Start it from DefaultConfig: a zero
// MarketSummaryTTL means "no cache", not the default.
type Config struct {
	// Roles this process runs; zero = all (the monolith).
	Roles Roles

	DB     string // store DSN: sqlite:PATH or postgres://…; not needed by a web-only remote tier
	Listen string // web role: TCP address; "127.0.0.1:0" picks a free port (see Server.Addr)

	// Web is the web tier's settings (web role): session lifetime and secret, the account
	// page's orders cap, stream limits, secure cookies, … with their defaults and checks in
	// package web. Start fills in what the process provides: Config, Access, Logger, Quotes.
	Web web.Options
	// Services is the in-process business service's settings (the roles that run it): market
	// summary cache, password hash cost, login throttle, … with their defaults and checks in
	// package business. Start fills in Dispatch, Observe, OnCancel and Quotes.
	Services business.Options

	// Access is how the web tier calls the business services: inprocess (default), soap,
	// rest or grpc. The remote modes call the services host at BSL (SOAP, REST) or BSLGRPC
	// (gRPC); with the bsl role in this process, empty addresses mean its own host.
	Access        string
	BSL, BSLGRPC  string
	Remote        remote.Options // the remote clients' timeout and connection pools
	FixedAccess   bool           // the config page may not switch the access mode
	BSLListen     string         // bsl role: the host's SOAP/REST address ("" = a free loopback port)
	BSLGRPCListen string         // bsl role: the host's gRPC address ("" = a free loopback port)

	// ServiceToken is the shared secret the services host and the order endpoints require and
	// the web tier and the order dispatchers send (svcauth). Empty: resolved as
	// ResolveTokens says, or else a random token for this process alone, which is right
	// when every caller of those endpoints is in this process (the monolith, embedded runs).
	ServiceToken string
	// ResolveTokens makes Start find the empty tokens the way an operator's process does
	// (serve), logging where they came from, and writing a token file a process must share
	// when there is none (removed again if Start fails: a refused start leaves nothing):
	//   - ServiceToken: $TRADEBENCH_SERVICE_TOKEN, ServiceTokenFile, or
	//     ./tradebench-service-token, written where a services host or order processor of a
	//     distributed deployment has none;
	//   - Orders.NATSToken: $TRADEBENCH_NATS_TOKEN, NATSTokenFile, or ./tradebench-nats-token,
	//     written where the embedded broker has a fixed port (Orders.NATSPort), so that other
	//     processes can join it; with none, the embedded broker uses a random token of its own.
	ResolveTokens bool
	// ServiceTokenFile is the token file ResolveTokens reads (and, for the monolith,
	// writes when it does not exist yet, so a smart client can call its services host).
	ServiceTokenFile string
	// NATSTokenFile is the NATS token file ResolveTokens reads (must exist when given).
	NATSTokenFile string
	// TLS, if set, is mutual TLS between the tiers: the services host and the order endpoints
	// serve TLS and require client certificates; the web tier and the dispatchers present one.
	TLS svcauth.TLSFiles

	// Orders is the order processing mode and its broker (Mode "" = sync).
	Orders orders.Config
	// OrderHTTPListen and OrderGRPCListen are where an order processor that runs without the
	// services in its process (serve --role orders) takes orders over REST and gRPC.
	OrderHTTPListen, OrderGRPCListen string

	// LoadIfEmpty, if not nil, loads this data set into a database that has never been loaded;
	// nil makes an empty database an error that says how to load it.
	LoadIfEmpty *store.LoadSpec
	// LoadProgress gets the progress of that load (nil: none; LogLoadProgress logs it).
	LoadProgress func(done, total int64)

	Logger *slog.Logger // nil = slog.Default()

	// MetricsListen is where the Prometheus endpoint (/metrics) listens; empty serves none (the
	// metrics are still kept: see Server.Metrics). It is a listener of its own so the operator
	// decides who may read it (see package internal/metrics).
	MetricsListen string
}

// DefaultLoginMaxFailures is --login-max-failures' default (Services.LoginMaxFailures): far
// above a person's typing mistakes, far below what guessing needs. Benchmarks log in with
// valid passwords and never reach it.
const DefaultLoginMaxFailures = 20

// DefaultConfig is `tradebench serve` with no flags: the settings whose zero value means
// something else (no database, no listener, no market summary cache, no login limit) set, and
// the rest filled by SetDefaults.
func DefaultConfig() Config {
	c := Config{
		DB:       dataset.DefaultDB,
		Listen:   "127.0.0.1:8080",
		Services: business.Options{MarketSummaryTTL: 60 * time.Second, LoginMaxFailures: DefaultLoginMaxFailures},
	}
	c.SetDefaults()
	return c
}

// SetDefaults fills the zero fields that have a default, as nats-server's setBaselineOptions
// does: the server's own here, the web tier's, the services', the remote clients' and the
// order processing's by their packages' SetDefaults. Start calls it; Validate checks a
// configuration as SetDefaults would leave it.
func (c *Config) SetDefaults() {
	c.Web.SetDefaults()
	c.Services.SetDefaults()
	c.Remote.SetDefaults()
	c.Orders.SetDefaults()
	if c.Access == "" {
		c.Access = remote.InProcess
	}
	if !c.roles().Web {
		// a services host for other processes: a fixed, documented address (with the web role
		// in this process, "" is a free loopback port: the web tier finds it itself)
		if c.BSLListen == "" {
			c.BSLListen = DefaultBSLListen
		}
		if c.BSLGRPCListen == "" {
			c.BSLGRPCListen = DefaultBSLGRPCListen
		}
	}
}

func (c Config) roles() Roles {
	if c.Roles.IsZero() {
		return AllRoles
	}
	return c.Roles
}

func (c Config) access() string {
	if c.Access == "" {
		return remote.InProcess
	}
	return c.Access
}

// localServices reports whether this process runs the in-process trade service (and so needs
// the database): the services host, or a web tier that calls the services in-process.
func (c Config) localServices() bool {
	r := c.roles()
	return r.BSL || (r.Web && c.access() == remote.InProcess)
}

func (c Config) needsDB() bool { return c.localServices() || c.roles().Orders }

// Validate reports a configuration that cannot run: a *setting.Error names the Config field. It
// checks c as SetDefaults leaves it, so a zero field (its default) is never refused.
func (c Config) Validate() error {
	c.SetDefaults()
	r := c.roles()
	switch {
	case c.needsDB() && c.DB == "":
		return setting.Errorf("DB", "a database is required (e.g. sqlite:tradebench.db)")
	case r.Web && c.Listen == "":
		return setting.Errorf("Listen", "the web tier needs an address (e.g. 127.0.0.1:8080)")
	}
	for _, part := range []struct {
		field string
		err   error
	}{{"Web", c.Web.Validate()}, {"Services", c.Services.Validate()}, {"Remote", c.Remote.Validate()}, {"Orders", c.Orders.Validate()}} {
		if part.err != nil {
			return setting.In(part.field, part.err)
		}
	}
	if !slices.Contains(remote.Accesses(), c.access()) {
		return setting.Errorf("Access", "unknown access mode %q: use one of %s", c.Access, strings.Join(remote.Accesses(), ", "))
	}
	if r.Web && !r.BSL {
		switch a := c.access(); {
		case (a == remote.SOAP || a == remote.REST) && c.BSL == "":
			return setting.Errorf("BSL", "access mode %s needs the services host's SOAP/REST address (a bsl role)", a)
		case a == remote.GRPC && c.BSLGRPC == "":
			return setting.Errorf("BSLGRPC", "access mode grpc needs the services host's gRPC address (a bsl role)")
		}
	}
	if !c.localServices() && r.Orders && c.Orders.NATS == "" && (c.Orders.Mode == orders.AsyncDurable || c.Orders.Mode == orders.AsyncVolatile) {
		return setting.Errorf("Orders.NATS", "order mode %s in an orders-only process needs the URL of the broker the services tier uses (give that tier a fixed embedded NATS port, e.g. 4222, and nats://127.0.0.1:4222 here, or run a NATS server)", c.Orders.Mode)
	}
	if c.needsDB() {
		if _, _, err := dsn.Parse(c.DB); err != nil {
			return &setting.Error{Field: "DB", Err: err}
		}
	}
	if _, err := c.TLS.Server(); err != nil { // the files must load (nothing without TLS)
		return &setting.Error{Field: "TLS", Err: err}
	}
	return nil
}

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
	var wrote []string // token files this start created
	defer func() {
		if srv == nil {
			for _, f := range wrote {
				os.Remove(f) // a refused start leaves no token file behind
			}
		}
	}()
	for _, resolve := range []func(*slog.Logger) (string, error){cfg.resolveServiceToken, cfg.resolveNATSToken} {
		f, err := resolve(log)
		if f != "" {
			wrote = append(wrote, f)
		}
		if err != nil {
			return nil, err
		}
	}
	if cfg.ServiceToken == "" {
		cfg.ServiceToken = svcauth.NewToken()
	} else if err := svcauth.Validate(cfg.ServiceToken); err != nil {
		return nil, &setting.Error{Field: "ServiceToken", Err: err}
	}
	serverTLS, err := cfg.TLS.Server()
	if err != nil {
		return nil, &setting.Error{Field: "TLS", Err: err}
	}
	clientTLS, err := cfg.TLS.Client()
	if err != nil {
		return nil, &setting.Error{Field: "TLS", Err: err}
	}
	cfg.Orders.Auth = svcauth.Client{Token: cfg.ServiceToken, TLS: clientTLS}
	cfg.Orders.ServerTLS = serverTLS
	cfg.Remote.Auth = cfg.Orders.Auth
	s := &Server{cfg: cfg, roles: cfg.roles(), log: log, done: make(chan struct{}), started: time.Now()}
	s.metrics = metrics.NewRegistry()
	instrument := func(h http.Handler) http.Handler { return s.metrics.Instrument(h, serviceRoutes, serviceRoute) }
	cfg.Orders.HTTPMiddleware = instrument
	var observe business.OrderObserver // a nil *orderMetrics in it would not be a nil interface
	if cfg.needsDB() {
		om := newOrderMetrics(string(cfg.Orders.Mode))
		s.metrics.MustRegister(om.vecs...)
		observe = om
	}
	fail := func(err error) (*Server, error) {
		s.stop(context.Background())
		return nil, err
	}
	if cfg.needsDB() {
		if err := s.openStore(ctx); err != nil {
			return nil, err
		}
	}
	if s.roles.Web {
		s.quotes = stream.NewHub[*stream.Event](0)
	}
	var local *stream.Hub[*stream.Event]
	if cfg.localServices() {
		local = s.quotes // a web tier over its own in-process service hears it directly
	}
	s.pub = stream.NewPublisher(local, log)
	mkService := func(d business.OrderDispatcher) *business.Service {
		opts := cfg.Services
		opts.Observe, opts.Dispatch, opts.Quotes = observe, d, s.pub
		opts.OnCancel = func(o trade.Order, reason string) {
			log.Info("order cancelled", "order", o.OrderID, "account", o.AccountID, "reason", reason)
		}
		return business.New(s.st, opts)
	}
	switch {
	case cfg.localServices():
		// The service places orders through the mode's dispatcher; with the orders role here
		// too, StartServices also runs the processor that completes them.
		s.ord, s.svc, err = orders.StartServices(ctx, cfg.Orders, mkService, s.roles.Orders)
	case s.roles.Orders:
		// A processor on its own: it takes orders from every transport at once.
		s.svc = mkService(nil)
		s.ord, err = orders.StartProcessor(ctx, cfg.Orders, s.svc, cfg.OrderHTTPListen, cfg.OrderGRPCListen)
	}
	if err != nil {
		return fail(err)
	}
	if o := cfg.Orders; s.ord != nil && !s.roles.Orders && o.NATS == "" && o.NATSPort <= 0 && (o.Mode == orders.AsyncDurable || o.Mode == orders.AsyncVolatile) {
		log.Warn("orders go to an embedded NATS server on a random port, and no order processor runs in this process: "+
			"start an orders-role process with Orders.NATS = "+s.ord.NATSURL+" (or give Orders.NATSPort a fixed port)", "nats", s.ord.NATSURL)
	}
	if err := s.connectQuotes(); err != nil {
		return fail(err)
	}
	s.metrics.MustRegister(s.malformedCounters()...)
	if s.roles.BSL {
		hl, gl := cfg.BSLListen, cfg.BSLGRPCListen
		if hl == "" {
			hl = "127.0.0.1:0" // the web tier in this process finds it (SetDefaults)
		}
		if gl == "" {
			gl = "127.0.0.1:0"
		}
		s.host, err = host.Start(ctx, s.svc, host.Config{HTTPListen: hl, GRPCListen: gl, Logger: log,
			Token: cfg.ServiceToken, TLS: serverTLS, Middleware: instrument})
		if err != nil {
			return fail(fmt.Errorf("services host: %w", err))
		}
		s.metrics.MustRegister(callsCollector{s.host.Calls()})
	}
	if s.roles.Web {
		if err := s.startWeb(ctx); err != nil {
			return fail(err)
		}
	}
	if cfg.MetricsListen != "" {
		if s.metEP, err = metrics.Listen(ctx, cfg.MetricsListen, s.metrics, log); err != nil {
			return fail(err)
		}
	}
	return s, nil
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
			s.log.Warn("quote changes from a remote services host need --nats (Orders.NATS): the trades execute in the services process, so without a NATS broker shared with it (e.g. serve --role bsl --orders async-volatile --nats-port 4222, and --nats nats://HOST:4222 here) this web tier's live quote streams never update")
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

// Describe is what this process runs: roles, modes, endpoints and settings, per component. The
// config page shows it, /trade/config.json serves it, and `tradebench run` records it with the
// results (their disclosure's configuration).
func (s *Server) Describe() *web.Configuration {
	c := s.cfg
	d := &web.Configuration{
		Tradebench: version.Version,
		Roles:      s.roles.String(),
		Listen:     s.Addr(),
		Web:        web.ConfigWeb{OrdersCap: c.Web.OrdersLimit, SessionTTLSeconds: c.Web.SessionTTL.Seconds()},
		Runtime: &web.ConfigRuntime{Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH,
			GOMAXPROCS: runtime.GOMAXPROCS(0), GOGC: gctune.Current(), CPUs: runtime.NumCPU(), Started: s.started, UptimeSeconds: time.Since(s.started).Seconds()},
	}
	if s.st != nil {
		sp := s.info.Spec
		d.Store = &web.ConfigStore{DSN: dsn.Redact(c.DB), Kind: s.st.Kind(),
			DataSet: web.ConfigDataSet{Accounts: sp.Accounts, Quotes: sp.Quotes, Holdings: sp.Holdings, Seed: sp.Seed, LoadedAt: s.info.LoadedAt}}
	}
	if s.sw != nil {
		a := s.sw.Settings()
		d.Access = &web.ConfigAccess{Mode: a.Access, Addr: a.Addr, MaxConnsPerHost: a.MaxConnsPerHost, GRPCConns: a.GRPCConns}
		if t, err := time.ParseDuration(a.Timeout); err == nil {
			d.Access.CallTimeoutSeconds = t.Seconds()
		}
		if sw := s.switchable(); sw != nil {
			d.Access.Modes = sw.Modes()
		}
		if !c.localServices() {
			d.Access.DataSet = s.remote.get(s.sw)
		}
	}
	if s.host != nil {
		in := s.host.Info()
		d.Host = &web.ConfigHost{SOAPURL: in.SOAPURL, WSDLURL: in.WSDLURL, RESTURL: in.RESTURL, OpenAPIURL: in.OpenAPIURL, GRPCAddr: in.GRPCAddr}
	}
	if !c.localServices() && !s.roles.Orders {
		// a remote web tier places orders through the services host, whose mode decides
		d.Orders.SetByServicesHost = true
	} else {
		d.Orders.Mode = string(c.Orders.Mode)
		if s.ord != nil {
			d.Orders.NATS = s.ord.NATSURL
			if s.ord.Processor != nil {
				d.Orders.Processor = &web.ConfigProcessor{Concurrency: c.Orders.Concurrency, Batch: c.Orders.Batch}
			} else if c.Orders.Mode != orders.Sync {
				d.Orders.CompletedElsewhere = true
			}
		}
	}
	if s.quotes != nil {
		st := s.quotes.Stats()
		ls := &web.ConfigStreams{Source: "in-process", Limit: c.Web.StreamLimit, Subscribers: st.Subscribers, Published: st.Published, Dropped: st.Dropped}
		if s.nc != nil {
			ls.Source, ls.NATS = "nats", s.nc.ConnectedUrlRedacted()
		}
		d.Streams = ls
	}
	if c.localServices() {
		// settings of the in-process service; a remote web tier's are its host's
		d.Services = &web.ConfigServices{MarketSummaryIntervalSeconds: c.Services.MarketSummaryTTL.Seconds(),
			PasswordHash:     web.ConfigPasswordHash{Algorithm: "bcrypt", Cost: c.Services.HashCost, LoadedCost: s.info.Spec.HashCost},
			LoginMaxFailures: c.Services.LoginMaxFailures}
	}
	// every role but a web tier calling its services in-process serves or calls an
	// authenticated endpoint
	d.Security = web.ConfigSecurity{ServiceToken: s.host != nil || s.ord != nil || (s.sw != nil && !c.localServices()), MutualTLS: c.TLS.Enabled()}
	return d
}

// Endpoints are what this process serves and where, as slog attributes for the one start-up
// line an operator reads (roles, order mode, database, URLs of the pages, services, broker,
// order endpoints and metrics).
func (s *Server) Endpoints() []any {
	attrs := []any{"roles", s.roles.String()}
	if s.ord != nil {
		attrs = append(attrs, "orders", string(s.cfg.Orders.Mode))
	}
	if s.st != nil {
		attrs = append(attrs, "db", dsn.Redact(s.cfg.DB))
	}
	if s.sw != nil {
		attrs = append(attrs, "url", s.URL()+"/trade/", "daytrader", s.URL()+"/daytrader/app", "access", s.sw.Mode())
	}
	if s.host != nil {
		in := s.host.Info()
		attrs = append(attrs, "soap", in.SOAPURL, "rest", in.RESTURL, "grpc", in.GRPCAddr)
	}
	if o := s.ord; o != nil {
		if o.NATSURL != "" {
			attrs = append(attrs, "nats", o.NATSURL)
		}
		if o.HTTPAddr != "" && !s.roles.Web && !s.roles.BSL {
			attrs = append(attrs, "order-http", o.HTTPAddr, "order-grpc", o.GRPCAddr)
		}
	}
	if u := s.MetricsURL(); u != "" {
		attrs = append(attrs, "metrics", u)
	}
	return attrs
}
