package server

import (
	"runtime"
	"time"

	"github.com/tradebench/tradebench/internal/dsn"
	"github.com/tradebench/tradebench/internal/gctune"
	"github.com/tradebench/tradebench/internal/version"
	"github.com/tradebench/tradebench/trade/orders"
	"github.com/tradebench/tradebench/trade/web"
)

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
			GOMAXPROCS: runtime.GOMAXPROCS(0), GOGC: gctune.Current(), CPUs: runtime.NumCPU(),
			Started: s.started, UptimeSeconds: time.Since(s.started).Seconds()},
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
		ls := &web.ConfigStreams{Source: "in-process", Limit: c.Web.StreamLimit, Subscribers: st.Subscribers, Published: st.Published,
			Dropped: st.Dropped}
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
