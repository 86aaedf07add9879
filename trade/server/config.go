package server

import (
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/tradebench/tradebench/internal/dsn"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/orders"
	"github.com/tradebench/tradebench/trade/remote"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
	"github.com/tradebench/tradebench/trade/store"
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
		return setting.Errorf("Orders.NATS",
			"order mode %s in an orders-only process needs the URL of the broker the services tier uses (give that tier a fixed embedded NATS "+
				"port, e.g. 4222, and nats://127.0.0.1:4222 here, or run a NATS server)", c.Orders.Mode)
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

// Defaults of a process started by `tradebench serve` beyond those in DefaultConfig.
const (
	// DefaultBSLListen and DefaultBSLGRPCListen are the services host's fixed, documented
	// addresses when this process has no web role (another process's web tier calls them).
	// With the web role the host takes free loopback ports instead.
	DefaultBSLListen     = "127.0.0.1:8081"
	DefaultBSLGRPCListen = "127.0.0.1:8082"
	// DefaultLoadIfEmptyAccounts and DefaultLoadIfEmptyQuotes size the data set loaded into an
	// empty database on request (serve --load-if-empty): the one default data set, run's.
	DefaultLoadIfEmptyAccounts = dataset.DefaultAccounts
	DefaultLoadIfEmptyQuotes   = dataset.DefaultQuotes
)
