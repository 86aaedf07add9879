package web

import (
	"fmt"
	"strconv"
	"time"
)

// Configuration is what a running StockTrader process runs: its roles, modes and settings, one
// section per component. /trade/config.json serves it as is, for programs (snake_case keys,
// numbers as numbers, durations in seconds; the driver records it with the results), and the
// config page renders the same value for people (Sections): one source for both.
type Configuration struct {
	Tradebench string `json:"tradebench"` // the tradebench version
	Roles      string `json:"roles"`
	Listen     string `json:"listen,omitempty"`
	// Store is nil in a process without a database (a web tier calling remote services).
	Store *ConfigStore `json:"store,omitempty"`
	// Access is nil in a process without the web role.
	Access *ConfigAccess `json:"access,omitempty"`
	// Host is the business services host's endpoints, in a process with the bsl role.
	Host *ConfigHost `json:"host,omitempty"`
	// Services are the in-process business service's settings; nil where the services are
	// another process's (a remote web tier's are its host's).
	Services *ConfigServices `json:"services,omitempty"`
	Orders   ConfigOrders    `json:"orders"`
	Web      ConfigWeb       `json:"web"`
	// Security is how this process's endpoints and calls between tiers are authenticated.
	Security ConfigSecurity `json:"security"`
	// Streams are the web tier's live streams (nil without the web role).
	Streams *ConfigStreams `json:"streams,omitempty"`
	Runtime *ConfigRuntime `json:"runtime,omitempty"`
}

// ConfigStore is the database and the data set loaded into it.
type ConfigStore struct {
	DSN     string        `json:"dsn"` // password redacted
	Kind    string        `json:"kind"`
	DataSet ConfigDataSet `json:"data_set"`
}

// ConfigDataSet is what was loaded.
type ConfigDataSet struct {
	Accounts int    `json:"accounts"`
	Quotes   int    `json:"quotes"`
	Holdings int    `json:"holdings"` // per account
	Seed     int64  `json:"seed"`
	LoadedAt string `json:"loaded_at"` // RFC 3339
}

// ConfigAccess is how the web tier reaches the business services.
type ConfigAccess struct {
	Mode string `json:"mode"` // inprocess, soap, rest or grpc
	// Modes are the modes the config page can switch to.
	Modes              []string `json:"modes,omitempty"`
	Addr               string   `json:"addr,omitempty"` // the services host (remote modes)
	CallTimeoutSeconds float64  `json:"call_timeout_seconds,omitempty"`
	MaxConnsPerHost    int      `json:"max_conns_per_host,omitempty"`
	GRPCConns          int      `json:"grpc_conns,omitempty"` // HTTP/2 connections
	// DataSet is a web tier's without a database: the accounts and quotes its services host
	// holds, counted by asking it (nil until it answers). A driver sizes its scenario by it.
	DataSet *ConfigDataSet `json:"data_set,omitempty"`
}

// ConfigHost is the business services host's endpoints.
type ConfigHost struct {
	SOAPURL    string `json:"soap_url"`
	WSDLURL    string `json:"wsdl_url"`
	RESTURL    string `json:"rest_url"`
	OpenAPIURL string `json:"openapi_url"`
	GRPCAddr   string `json:"grpc_addr"`
}

// ConfigSecurity is the authentication between tiers (docs/security.md).
type ConfigSecurity struct {
	// ServiceToken: the services host and order endpoints here require the service token,
	// and this process's clients of them send it.
	ServiceToken bool `json:"service_token"`
	// MutualTLS: those endpoints and clients use mutual TLS.
	MutualTLS bool `json:"mutual_tls"`
}

// ConfigServices are the business service's settings.
type ConfigServices struct {
	// MarketSummaryIntervalSeconds is how long the market summary is cached (0: computed on
	// every request).
	MarketSummaryIntervalSeconds float64            `json:"market_summary_interval_seconds"`
	PasswordHash                 ConfigPasswordHash `json:"password_hash"`
	// LoginMaxFailures is the login throttle: wrong passwords per user id per minute before
	// its logins get 429 until the minute has passed (0 = no limit).
	LoginMaxFailures int `json:"login_max_failures"`
}

// ConfigPasswordHash is how passwords are hashed: new ones at Cost, the loaded users' at
// LoadedCost.
type ConfigPasswordHash struct {
	Algorithm  string `json:"algorithm"`
	Cost       int    `json:"cost"`
	LoadedCost int    `json:"loaded_cost"`
}

// ConfigOrders is how orders complete.
type ConfigOrders struct {
	// Mode is the order mode (sync, async-durable...); empty where the business services
	// host decides it (SetByServicesHost).
	Mode              string `json:"mode,omitempty"`
	SetByServicesHost bool   `json:"set_by_services_host,omitempty"`
	NATS              string `json:"nats,omitempty"` // the broker's URL (async queue modes)
	// Processor is the order processor in this process; nil when there is none here.
	Processor *ConfigProcessor `json:"processor,omitempty"`
	// CompletedElsewhere: asynchronous orders are completed by another process
	// (`serve --role orders`).
	CompletedElsewhere bool `json:"completed_elsewhere,omitempty"`
}

// ConfigProcessor is an order processor's concurrency.
type ConfigProcessor struct {
	Concurrency int `json:"concurrency"`
	Batch       int `json:"batch"`
}

// ConfigWeb is the web tier's settings.
type ConfigWeb struct {
	OrdersCap         int     `json:"orders_cap"`
	SessionTTLSeconds float64 `json:"session_ttl_seconds"`
}

// ConfigStreams are the live streams (/trade/stream/…) of a web tier.
type ConfigStreams struct {
	// Source is where quote changes come from: "nats" (every process's, over NATS) or
	// "in-process" (this process's own order executions).
	Source      string `json:"source"`
	NATS        string `json:"nats,omitempty"`
	Limit       int    `json:"limit"`       // most streams open at once
	Subscribers int    `json:"subscribers"` // quote stream subscribers now
	Published   int64  `json:"published"`   // quote changes received since start
	Dropped     int64  `json:"dropped"`     // subscribers dropped as too slow
}

// ConfigRuntime is the process's Go runtime and machine.
type ConfigRuntime struct {
	Go            string    `json:"go"`
	OS            string    `json:"os"`
	Arch          string    `json:"arch"`
	GOMAXPROCS    int       `json:"gomaxprocs"`
	GOGC          int       `json:"gogc"` // the garbage collector's target (internal/gctune)
	CPUs          int       `json:"cpus"`
	Started       time.Time `json:"started"`
	UptimeSeconds float64   `json:"uptime_seconds"`
}

// ConfigSection is one table of the config page.
type ConfigSection struct {
	Title    string
	Settings []Setting
}

// Sections are the config page's tables: the configuration in words, component by component.
func (c *Configuration) Sections() []ConfigSection {
	var out []ConfigSection
	add := func(title string, set ...Setting) {
		if len(set) > 0 {
			out = append(out, ConfigSection{Title: title, Settings: set})
		}
	}
	var proc []Setting
	for _, s := range []Setting{{"tradebench version", c.Tradebench}, {"roles", c.Roles}, {"listen", c.Listen}} {
		if s.Value != "" {
			proc = append(proc, s)
		}
	}
	add("Process", proc...)
	if st := c.Store; st != nil {
		d := st.DataSet
		add("Store", Setting{"storage", st.DSN},
			Setting{"data set", fmt.Sprintf("%d accounts, %d quotes, %d holdings each, seed %d, loaded %s", d.Accounts, d.Quotes, d.Holdings,
				d.Seed, d.LoadedAt)})
	}
	if a := c.Access; a != nil {
		v := a.Mode
		if a.Addr != "" {
			v += " → " + a.Addr + ", call timeout " + seconds(a.CallTimeoutSeconds).String()
			if a.MaxConnsPerHost > 0 {
				v += ", at most " + strconv.Itoa(a.MaxConnsPerHost) + " connections"
			}
			if a.GRPCConns > 0 {
				v += ", " + strconv.Itoa(a.GRPCConns) + " HTTP/2 connections"
			}
		}
		set := []Setting{{"access mode", v}}
		if d := a.DataSet; d != nil {
			set = append(set, Setting{"data set", fmt.Sprintf("%d accounts, %d quotes (the services host's, counted by asking it)", d.Accounts,
				d.Quotes)})
		}
		add("Access", set...)
	}
	if h := c.Host; h != nil {
		add("Business services host", Setting{"business services host", fmt.Sprintf("SOAP %s (WSDL %s), REST %s (OpenAPI %s), gRPC %s", h.SOAPURL,
			h.WSDLURL, h.RESTURL, h.OpenAPIURL, h.GRPCAddr)})
	}
	if o := c.Orders.describe(); o != "" {
		add("Orders", Setting{"orders mode", o})
	}
	if s := c.Services; s != nil {
		ttl := seconds(s.MarketSummaryIntervalSeconds).String()
		if s.MarketSummaryIntervalSeconds == 0 {
			ttl = "0 (no cache: computed on every request)"
		}
		throttle := "off"
		if s.LoginMaxFailures > 0 {
			throttle = fmt.Sprintf("%d wrong passwords per user id per minute, then 429 until the minute has passed", s.LoginMaxFailures)
		}
		add("Business services", Setting{"market summary interval", ttl},
			Setting{"password hash", fmt.Sprintf("%s, cost %d for new passwords, cost %d for the loaded users", s.PasswordHash.Algorithm,
				s.PasswordHash.Cost, s.PasswordHash.LoadedCost)},
			Setting{"login throttle", throttle})
	}
	if sec := c.Security; sec.ServiceToken {
		v := "service token required on the services host and order endpoints, sent by this process's clients"
		if sec.MutualTLS {
			v += "; mutual TLS between tiers"
		}
		add("Security", Setting{"services authentication", v})
	}
	add("Web", Setting{"orders cap", strconv.Itoa(c.Web.OrdersCap)}, Setting{"session TTL", seconds(c.Web.SessionTTLSeconds).String()})
	if l := c.Streams; l != nil {
		src := "this process's order executions (no NATS broker)"
		if l.Source == "nats" {
			src = "NATS " + l.NATS + " (trade.quotes.SYMBOL)"
		}
		add("Live streams", Setting{"quote changes from", src},
			Setting{"streams",
				fmt.Sprintf("%d quote subscribers now, at most %d streams at once; %d changes received, %d subscribers dropped as too slow",
					l.Subscribers, l.Limit, l.Published, l.Dropped)})
	}
	if r := c.Runtime; r != nil {
		add("Runtime", Setting{"Go version", r.Go + " " + r.OS + "/" + r.Arch}, Setting{"GOMAXPROCS", strconv.Itoa(r.GOMAXPROCS)}, Setting{"GOGC",
			strconv.Itoa(r.GOGC)},
			Setting{"CPUs", strconv.Itoa(r.CPUs)}, Setting{"started", r.Started.Format(time.RFC3339)},
			Setting{"uptime", seconds(r.UptimeSeconds).Round(time.Second).String()})
	}
	return out
}

// describe is the orders mode in words.
func (o ConfigOrders) describe() string {
	if o.SetByServicesHost {
		return "set by the business services host"
	}
	v := o.Mode
	if o.NATS != "" {
		v += ", NATS " + o.NATS
	}
	if o.Processor != nil {
		v += fmt.Sprintf(", processor in this process (%d at once, batch %d)", o.Processor.Concurrency, o.Processor.Batch)
	} else if o.CompletedElsewhere {
		v += ", completed by `serve --role orders`"
	}
	return v
}

// seconds converts a configuration's seconds back to a duration for display.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
