package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/tradebench/tradebench/internal/cliflag"
	"github.com/tradebench/tradebench/internal/dsn"
	"github.com/tradebench/tradebench/internal/httpserve"
	"github.com/tradebench/tradebench/internal/logsafe"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/remote"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
	"github.com/tradebench/tradebench/trade/server"
	"github.com/tradebench/tradebench/trade/web"
)

func init() {
	register(&command{name: "serve", summary: "run StockTrader: the monolith, or any of its tiers (web, bsl, orders)", run: runServe})
}

// serveFlags names the flags that set server.Config's fields (orders.Config's under Orders).
var serveFlags = cliflag.Names{
	"DB": "db", "Listen": "listen", "Access": "access", "BSL": "bsl", "BSLGRPC": "bsl-grpc",
	"Services.MarketSummaryTTL": "market-summary-ttl", "Web.OrdersLimit": "orders-limit", "Services.HashCost": "hash-cost",
	"Web.SessionTTL": "session-ttl", "Remote.Timeout": "call-timeout",
	"Remote.MaxConnsPerHost": "max-conns-per-host", "Remote.GRPCConns": "grpc-conns", "ServiceTokenFile": "service-token-file",
	"ServiceToken": "service-token-file", "TLS": "tls-cert", "Services.LoginMaxFailures": "login-max-failures",
	"Web.StreamLimit": "stream-limit", "Web.StreamPerClient": "stream-per-client",
	"Orders.Mode": "orders", "Orders.NATS": "nats", "Orders.Concurrency": "concurrency", "Orders.Batch": "batch",
	"Orders.Processor": "order-processor", "Orders.NATSToken": "nats-token-file", "NATSTokenFile": "nats-token-file",
	"Orders.NATSPort": "nats-port", "Orders.WorkDir": "work-dir", "OrderHTTPListen": "order-http", "OrderGRPCListen": "order-grpc",
}

var serveHelp = helpText("serve.txt", "{{token-file}}", svcauth.DefaultTokenFile)

func runServe(ctx context.Context, args []string) error {
	cfg := server.DefaultConfig()
	fs := cliflag.NewFlagSet("tradebench serve", "[flags]")
	cliflag.SetHelp(fs, serveHelp)
	role := fs.String("role", "all", "roles to run: all (the monolith), or a comma-separated list of web, bsl (business services host), orders (order processor)")
	fs.StringVar(&cfg.DB, "db", cfg.DB, "database: sqlite:PATH or postgres://user:pass@host/dbname (roles bsl and orders, and web with --access inprocess)")
	fs.StringVar(&cfg.Listen, "listen", cfg.Listen, "web role: address to serve HTTP on (host:port; port 0 picks a free one)")
	fs.StringVar(&cfg.Access, "access", cfg.Access, "web role: how the pages call the business services: inprocess, soap, rest or grpc (switchable at runtime on /trade/config)")
	fs.StringVar(&cfg.BSL, "bsl", "", "web role: the services host's SOAP/REST address (host:port) for --access soap|rest; empty with the bsl role in this process = its own")
	fs.StringVar(&cfg.BSLGRPC, "bsl-grpc", "", "web role: the services host's gRPC address (host:port) for --access grpc; empty with the bsl role in this process = its own")
	fs.StringVar(&cfg.BSLListen, "bsl-listen", "", "bsl role: address of the SOAP (/soap/trade, WSDL at ?wsdl) and REST (/api/v1/, OpenAPI at /api/v1/openapi.json) endpoints (default "+server.DefaultBSLListen+" without the web role; with it, a free loopback port: see /trade/config)")
	fs.StringVar(&cfg.BSLGRPCListen, "bsl-grpc-listen", "", "bsl role: address of the gRPC endpoint (default "+server.DefaultBSLGRPCListen+" without the web role; with it, a free loopback port)")
	accessSwitch := fs.Bool("access-switch", true, "web role: allow switching the access mode on /trade/config (false fixes it for the process's life)")
	fs.DurationVar(&cfg.Remote.Timeout, "call-timeout", cfg.Remote.Timeout, "web role, remote access: timeout of every call to the services host (a lost host gives an error page, not a hang)")
	fs.IntVar(&cfg.Remote.MaxConnsPerHost, "max-conns-per-host", cfg.Remote.MaxConnsPerHost, "web role, --access soap|rest: connection pool to the services host (a pool of 2, the old .NET default, serialises the web tier)")
	fs.IntVar(&cfg.Remote.GRPCConns, "grpc-conns", cfg.Remote.GRPCConns, "web role, --access grpc: HTTP/2 connections to spread calls over")
	fs.StringVar(&cfg.ServiceTokenFile, "service-token-file", "", "file holding the service token (mode 0600) the services host and order endpoints require and web tiers and order dispatchers send; $"+svcauth.EnvToken+" wins")
	fs.StringVar(&cfg.TLS.Cert, "tls-cert", "", "mutual TLS between tiers: this process's certificate (PEM); needs --tls-key and --tls-ca")
	fs.StringVar(&cfg.TLS.Key, "tls-key", "", "mutual TLS: this process's private key (PEM)")
	fs.StringVar(&cfg.TLS.CA, "tls-ca", "", "mutual TLS: the CA (PEM) that signed the other tiers' certificates")
	fs.BoolVar(&cfg.Web.SecureCookies, "behind-tls", false, "web role: browsers reach this web tier through a TLS-terminating proxy (https): cookies get the Secure attribute, so the session never travels over plain HTTP")
	fs.IntVar(&cfg.Services.LoginMaxFailures, "login-max-failures", cfg.Services.LoginMaxFailures, "wrong passwords per account per client address per minute before that client's further logins of it are refused with 429 until the minute has passed, and ten times as many across accounts for all its logins (0 = no limit)")
	registerOrderFlags(fs, &cfg)
	fs.IntVar(&cfg.Web.StreamPerClient, "stream-per-client", cfg.Web.StreamPerClient, "web role: most live streams one client address may hold open, under --stream-limit; one more gets 429")
	fs.IntVar(&cfg.Web.StreamLimit, "stream-limit", cfg.Web.StreamLimit, "web role: most live streams (/trade/stream/quotes, /trade/stream/summary) open at once; one more gets 503. Quote changes reach every web tier over the NATS broker (--nats), or stay in this process without one")
	fs.DurationVar(&cfg.Services.MarketSummaryTTL, "market-summary-ttl", cfg.Services.MarketSummaryTTL, "how long the market summary is cached; 0 computes it on every request")
	fs.IntVar(&cfg.Web.OrdersLimit, "orders-limit", cfg.Web.OrdersLimit, "most orders shown on the account page")
	fs.IntVar(&cfg.Services.HashCost, "hash-cost", cfg.Services.HashCost, "bcrypt cost of new and changed passwords (4-31; higher makes login/register realistic but slow)")
	fs.DurationVar(&cfg.Web.SessionTTL, "session-ttl", cfg.Web.SessionTTL, "how long a login session lasts without activity (at least "+web.MinSessionTTL.String()+")")
	metricsListen := metricsListenFlag(fs)
	loadIfEmpty := fs.Bool("load-if-empty", false, "load a data set (sized by --accounts, --quotes, --holdings) if the database has never been loaded")
	spec := dataset.DefaultSpec()
	spec.Accounts, spec.Quotes = server.DefaultLoadIfEmptyAccounts, server.DefaultLoadIfEmptyQuotes
	fs.IntVar(&spec.Accounts, "accounts", spec.Accounts, "with --load-if-empty: accounts to load")
	fs.IntVar(&spec.Quotes, "quotes", spec.Quotes, "with --load-if-empty: quotes to load")
	fs.IntVar(&spec.Holdings, "holdings", spec.Holdings, "with --load-if-empty: holdings (and orders) per account")
	fs.Int64Var(&spec.Seed, "seed", spec.Seed, "with --load-if-empty: random seed of the data set")
	if err := cliflag.Parse(fs, args, false); err != nil {
		return err
	}

	cfg.Logger = slog.New(logsafe.Handler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))) // request values cut and escaped
	roles, err := server.ParseRoles(*role)
	if err != nil {
		return cliflag.Errorf("--role: %v", err)
	}
	cfg.Roles = roles
	cfg.FixedAccess = !*accessSwitch
	cfg.ResolveTokens = true
	cfg.MetricsListen = *metricsListen
	if s := os.Getenv("TRADEBENCH_SESSION_SECRET"); s != "" {
		cfg.Web.SessionSecret = []byte(s) // from the environment, not a flag: flags show in ps
	}
	if err := cfg.Validate(); err != nil {
		return serveFlags.UsageError(err)
	}
	if *loadIfEmpty {
		if err := spec.Validate(); err != nil {
			return loadFlags.UsageError(err)
		}
		cfg.LoadIfEmpty = &spec
	}
	log := cfg.Logger
	httpserve.RouteGRPCLog(log.Handler())
	// the store is opened by the roles that serve data: it must exist unless it is to be loaded
	// (checked after the flags, before anything is written)
	if roles.BSL || roles.Orders || cfg.Access == remote.InProcess {
		if err := needDB(cfg.DB, *loadIfEmpty, "load it first: tradebench load --db "+dsn.Redact(cfg.DB)+" (or start with --load-if-empty)"); err != nil {
			return err
		}
	}
	srv, err := server.Start(ctx, cfg) // resolves the tokens (ResolveTokens)
	if err != nil {
		return loadHint(serveFlags.OrUsage(err), cfg.DB, true)
	}
	log.Info("tradebench serving", srv.Endpoints()...)
	return srv.Wait(ctx)
}
