// Package server wires the StockTrader monolith: it opens the store, builds the in-process
// trade service over it and the web application over that, and serves HTTP. `tradebench serve`
// and the embedded runs (`tradebench run`) start it through Start.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/inprocess"
	"github.com/tradebench/tradebench/trade/store"
	_ "github.com/tradebench/tradebench/trade/store/all" // the sqlite and postgres drivers
	"github.com/tradebench/tradebench/trade/web"
)

// Config is the monolith's configuration. Start it from DefaultConfig: a zero
// MarketSummaryTTL means "no cache", not the default.
type Config struct {
	DB     string // store DSN: sqlite:PATH or postgres://…
	Listen string // TCP address; "127.0.0.1:0" picks a free port (see Server.Addr)

	MarketSummaryTTL time.Duration // market summary cache interval; 0 = computed on every request
	OrdersLimit      int           // most orders on the account page; 0 = trade.DefaultOrdersLimit
	HashCost         int           // bcrypt cost of new and changed passwords; 0 = dataset.DefaultHashCost
	SessionTTL       time.Duration // session lifetime; 0 = web.DefaultSessionTTL
	SessionSecret    []byte        // signs session cookies; empty = random per process

	// LoadIfEmpty, if not nil, loads this data set into a database that has never been loaded;
	// nil makes an empty database an error that says how to load it.
	LoadIfEmpty  *store.LoadSpec
	LoadProgress func(done, total int64) // progress of that load (may be nil)

	Logger *slog.Logger // nil = slog.Default()
}

// DefaultConfig is `tradebench serve` with no flags.
func DefaultConfig() Config {
	return Config{
		DB:               "sqlite:tradebench.db",
		Listen:           "127.0.0.1:8080",
		MarketSummaryTTL: 60 * time.Second,
		OrdersLimit:      trade.DefaultOrdersLimit,
		HashCost:         dataset.DefaultHashCost,
		SessionTTL:       web.DefaultSessionTTL,
	}
}

// Validate reports a configuration that cannot run, naming the setting as its serve flag.
func (c Config) Validate() error {
	switch {
	case c.DB == "":
		return errors.New("--db is required (e.g. sqlite:tradebench.db)")
	case c.Listen == "":
		return errors.New("--listen is required (e.g. 127.0.0.1:8080)")
	case c.MarketSummaryTTL < 0:
		return fmt.Errorf("--market-summary-ttl must be 0 (no cache) or positive, got %v", c.MarketSummaryTTL)
	case c.OrdersLimit < 0 || c.OrdersLimit > 100_000:
		return fmt.Errorf("--orders-limit must be between 1 and 100000, got %d", c.OrdersLimit)
	case c.HashCost != 0 && (c.HashCost < 4 || c.HashCost > 31):
		return fmt.Errorf("--hash-cost must be a bcrypt cost between 4 and 31, got %d", c.HashCost)
	case c.SessionTTL < 0:
		return fmt.Errorf("--session-ttl must be positive, got %v", c.SessionTTL)
	case c.SessionTTL > 0 && c.SessionTTL < time.Minute:
		return fmt.Errorf("--session-ttl must be at least 1m, got %v", c.SessionTTL)
	}
	if _, _, err := store.ParseDSN(c.DB); err != nil {
		return fmt.Errorf("--db: %w", err)
	}
	return nil
}

// Server is a running monolith.
type Server struct {
	cfg     Config
	log     *slog.Logger
	st      store.Store
	svc     *inprocess.Service
	http    *http.Server
	ln      net.Listener
	started time.Time
	info    store.LoadInfo

	done    chan struct{}
	serveMu sync.Mutex
	err     error // from Serve, other than ErrServerClosed

	closeOnce sync.Once
	closeErr  error
}

// Start opens the database (loading it first if cfg.LoadIfEmpty and it is empty), builds the
// service and web application, and starts serving on cfg.Listen. It returns once the listener
// is bound; Close stops it.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.OrdersLimit == 0 {
		cfg.OrdersLimit = trade.DefaultOrdersLimit
	}
	if cfg.HashCost == 0 {
		cfg.HashCost = dataset.DefaultHashCost
	}
	if cfg.SessionTTL == 0 {
		cfg.SessionTTL = web.DefaultSessionTTL
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	s := &Server{cfg: cfg, log: log, done: make(chan struct{}), started: time.Now()}

	st, err := store.Open(ctx, cfg.DB)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", store.Redact(cfg.DB), err)
	}
	s.st = st
	fail := func(err error) (*Server, error) {
		st.Close()
		return nil, err
	}
	info, err := st.Loaded(ctx)
	if errors.Is(err, store.ErrNotLoaded) {
		if cfg.LoadIfEmpty == nil {
			return fail(fmt.Errorf("database %s is empty: load it first with\n  tradebench load --db %s\n(or start with --load-if-empty)", store.Redact(cfg.DB), store.Redact(cfg.DB)))
		}
		spec := *cfg.LoadIfEmpty
		log.Info("loading an empty database", "db", store.Redact(cfg.DB), "accounts", spec.Accounts, "quotes", spec.Quotes, "holdings", spec.Holdings)
		if err := st.Load(ctx, spec, cfg.LoadProgress); err != nil {
			return fail(fmt.Errorf("load %s: %w", store.Redact(cfg.DB), err))
		}
		info, err = st.Loaded(ctx)
	}
	if err != nil {
		return fail(fmt.Errorf("database %s: %w", store.Redact(cfg.DB), err))
	}
	s.info = info

	s.svc = inprocess.New(st, inprocess.Options{
		MarketSummaryTTL: cfg.MarketSummaryTTL,
		OrdersLimit:      cfg.OrdersLimit,
		HashCost:         cfg.HashCost,
	})
	h, err := web.New(s.svc, web.Options{
		SessionSecret: cfg.SessionSecret,
		SessionTTL:    cfg.SessionTTL,
		OrdersLimit:   cfg.OrdersLimit,
		Config:        s.settings,
		Logger:        log,
	})
	if err != nil {
		return fail(err)
	}

	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", cfg.Listen)
	if err != nil {
		return fail(fmt.Errorf("--listen %s: %w", cfg.Listen, err))
	}
	s.ln = ln
	s.http = &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	go func() {
		defer close(s.done)
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.serveMu.Lock()
			s.err = err
			s.serveMu.Unlock()
			log.Error("http server stopped", "err", err)
		}
	}()
	return s, nil
}

// Addr is the bound address (host:port), useful with port 0.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL is the base URL of the web application, e.g. http://127.0.0.1:8080.
func (s *Server) URL() string { return "http://" + s.Addr() }

// Service is the in-process trade service the pages use (for audits and tests).
func (s *Server) Service() trade.Service { return s.svc }

// Store is the open database.
func (s *Server) Store() store.Store { return s.st }

// Done is closed when the server has stopped serving.
func (s *Server) Done() <-chan struct{} { return s.done }

// Err is why serving stopped on its own (nil after a Close).
func (s *Server) Err() error {
	s.serveMu.Lock()
	defer s.serveMu.Unlock()
	return s.err
}

// Shutdown stops accepting connections, waits for requests in flight until ctx ends (then
// drops them), and closes the database.
func (s *Server) Shutdown(ctx context.Context) error {
	s.closeOnce.Do(func() {
		err := s.http.Shutdown(ctx)
		if err != nil {
			s.http.Close()
		}
		<-s.done
		s.closeErr = errors.Join(err, s.st.Close())
	})
	return s.closeErr
}

// Close is Shutdown with a 10 second grace period.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.Shutdown(ctx)
}

// settings are the config page's lines.
func (s *Server) settings() []web.Setting {
	c := s.cfg
	ttl := c.MarketSummaryTTL.String()
	if c.MarketSummaryTTL == 0 {
		ttl = "0 (no cache: computed on every request)"
	}
	sp := s.info.Spec
	return []web.Setting{
		{Name: "tradebench version", Value: report.Version},
		{Name: "roles", Value: "web + business services + order processing (monolith)"},
		{Name: "storage", Value: store.Redact(c.DB)},
		{Name: "data set", Value: fmt.Sprintf("%d accounts, %d quotes, %d holdings each, seed %d, loaded %s", sp.Accounts, sp.Quotes, sp.Holdings, sp.Seed, s.info.LoadedAt)},
		{Name: "access mode", Value: "inprocess"},
		{Name: "orders mode", Value: "sync"},
		{Name: "market summary interval", Value: ttl},
		{Name: "orders cap", Value: strconv.Itoa(c.OrdersLimit)},
		{Name: "password hash", Value: fmt.Sprintf("bcrypt, cost %d for new passwords, cost %d for the loaded users", c.HashCost, sp.HashCost)},
		{Name: "session TTL", Value: c.SessionTTL.String()},
		{Name: "listen", Value: s.Addr()},
		{Name: "Go version", Value: runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH},
		{Name: "GOMAXPROCS", Value: strconv.Itoa(runtime.GOMAXPROCS(0))},
		{Name: "CPUs", Value: strconv.Itoa(runtime.NumCPU())},
		{Name: "started", Value: s.started.Format(time.RFC3339)},
		{Name: "uptime", Value: time.Since(s.started).Round(time.Second).String()},
	}
}
