package wstestjob

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/url"
	"strings"
	"sync"

	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/driver/load"
	"github.com/tradebench/tradebench/driver/recorder"
	"github.com/tradebench/tradebench/driver/scenario"
	"github.com/tradebench/tradebench/internal/dsn"
	"github.com/tradebench/tradebench/internal/httpc"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/wstest"
	"github.com/tradebench/tradebench/wstest/grpcapi"
	"github.com/tradebench/tradebench/wstest/jsonapi"
	"github.com/tradebench/tradebench/wstest/soap"
)

// Workload is the WSTest load.Workload. Make it with NewWorkload, run it with load.Run (or use
// Run), and Close it after to release the users' connections.
type Workload struct {
	cfg     *Config
	structs []wstest.Struct
	list    *wstest.Node
	synth   *wstest.Synthetic
	cum     [wstest.NumOps]int
	total   int
	httpOpt *httpc.Options

	mu      sync.Mutex
	clients []wstest.Client
}

// Validate checks the targets the encoding needs.
func (c *Config) Validate() error {
	switch c.Encoding {
	case GRPC:
		if c.GRPCTarget == "" {
			return setting.Errorf("GRPCTarget", "the gRPC address host:port is required with the grpc encoding")
		}
	default:
		if c.Target == "" {
			return setting.Errorf("Target", "the service's URL is required (e.g. http://127.0.0.1:8080)")
		}
		u, err := url.Parse(c.Target)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return setting.Errorf("Target", "%q: want an http(s) URL like http://127.0.0.1:8080", c.Target)
		}
	}
	return c.Phases.Validate(true)
}

// NewWorkload prepares the payloads (built once, shared read-only by every user).
func NewWorkload(cfg *Config) (*Workload, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	w := &Workload{cfg: cfg, structs: wstest.MakeStructs(cfg.ListSize), list: wstest.MakeList(cfg.ListSize),
		synth: wstest.MakeSynthetic(cfg.NumBytes), httpOpt: &httpc.Options{Timeout: cfg.Timeout, UserAgent: "tradebench-wstest"}}
	for i, m := range cfg.Mix {
		w.total += m
		w.cum[i] = w.total
	}
	if w.total == 0 {
		return nil, errors.New("the mix is empty")
	}
	return w, nil
}

func (w *Workload) newClient() (wstest.Client, error) {
	lim := wstest.DefaultLimits()
	var c wstest.Client
	switch w.cfg.Encoding {
	case GRPC:
		if w.cfg.KeepAlive {
			gc, err := grpcapi.NewOwnClient(w.cfg.GRPCTarget, lim)
			if err != nil {
				return nil, err
			}
			c = gc
		} else {
			c = grpcapi.NewPerCallClient(w.cfg.GRPCTarget, lim)
		}
	default:
		p, err := wstest.NewLeanPoster(strings.TrimSuffix(w.cfg.Target, "/"), w.httpOpt, !w.cfg.KeepAlive)
		if err != nil {
			return nil, err
		}
		if w.cfg.Encoding == JSON {
			c = jsonapi.NewClient(p, lim)
		} else {
			c = soap.NewClient(p, w.cfg.SOAPPath, lim)
		}
	}
	w.mu.Lock()
	w.clients = append(w.clients, c)
	w.mu.Unlock()
	return c, nil
}

// Close closes every user's client.
func (w *Workload) Close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range w.clients {
		c.Close()
	}
	w.clients = nil
}

// NewUser implements load.Workload.
func (w *Workload) NewUser(id int) load.User {
	return &user{w: w, id: id, think: w.cfg.ThinkOr(scenario.Think{}), rng: rand.New(rand.NewPCG(uint64(id), 0x5753_5465_7374))}
}

type user struct {
	w     *Workload
	think scenario.Think
	id    int
	rng   *rand.Rand
	c     wstest.Client
	n     int32
}

func (u *user) pick() wstest.Op {
	r := u.rng.IntN(u.w.total)
	for i, c := range u.w.cum {
		if r < c {
			return wstest.Op(i)
		}
	}
	return wstest.EchoVoid
}

// Iterate implements load.User: think (methodology 2), call one operation, check the echo.
func (u *user) Iterate(ctx context.Context, it *load.Iteration) error {
	if u.think.Kind != scenario.ThinkNone {
		if err := it.Think(ctx, u.think.Sample(u.rng)); err != nil {
			return nil // the run ended while thinking
		}
	}
	if u.c == nil {
		c, err := u.w.newClient()
		if err != nil {
			return err
		}
		u.c = c
	}
	op := u.pick()
	start := it.StartTx()
	err := u.call(ctx, op)
	if !errors.Is(err, context.Canceled) { // a request cut off by the run's end is no hit
		ex := u.c.Last()
		it.Hit(start, ex.Status, ex.Bytes)
	}
	it.Done(op.String(), start, err)
	return nil
}

func (u *user) call(ctx context.Context, op wstest.Op) error {
	w := u.w
	switch op {
	case wstest.EchoVoid:
		return u.c.EchoVoid(ctx)
	case wstest.EchoStruct:
		out, err := u.c.EchoStruct(ctx, w.structs)
		if err != nil {
			return err
		}
		if !wstest.EqualStructs(w.structs, out) {
			return recorder.Failf("wrong echo", "EchoStruct: sent %d structs, got %d back or different values", len(w.structs), len(out))
		}
	case wstest.EchoList:
		out, err := u.c.EchoList(ctx, w.list)
		if err != nil {
			return err
		}
		if !wstest.EqualList(w.list, out) {
			return recorder.Failf("wrong echo", "EchoList: sent %d nodes, got %d back or different values", w.cfg.ListSize, wstest.ListLen(out, w.cfg.ListSize+1))
		}
	case wstest.EchoSynthetic:
		out, err := u.c.EchoSynthetic(ctx, w.synth)
		if err != nil {
			return err
		}
		if !wstest.EqualSynthetic(w.synth, out) {
			return recorder.Failf("wrong echo", "EchoSynthetic: the echo differs from what was sent")
		}
	case wstest.GetOrder:
		u.n++
		orderID := int32(u.id)*100_000 + u.n%100_000
		o, err := u.c.GetOrder(ctx, orderID, int32(u.id), int32(w.cfg.MessageSize))
		if err != nil {
			return err
		}
		if err := wstest.CheckOrder(o, orderID, int32(u.id), int32(w.cfg.MessageSize)); err != nil {
			return recorder.Failf("wrong order", "%v", err)
		}
	}
	return nil
}

// Run drives cfg against its target through the one pipeline (driver.Drive) under the drive's
// other settings d (thresholds, rules, repeats, live views, progress): the results carry the
// WSTest settings and a verdict.
func Run(ctx context.Context, cfg Config, d driver.Config) (*report.Results, error) {
	d.Phases = cfg.Phases // the run's load shape: the drive's from here on
	return driver.Drive(ctx, d, &cfg)
}

// Prepare implements driver.Workload: the payloads built once, the users' clients made as they
// start.
func (c *Config) Prepare(_ context.Context, d *driver.Config) (*driver.Run, error) {
	if c.Timeout == 0 {
		c.Timeout = d.Timeout
	}
	w, err := NewWorkload(c)
	if err != nil {
		return nil, err
	}
	target := c.Target
	if c.Encoding == GRPC {
		target = "http://" + c.GRPCTarget // the driver_cpu rule reads the port
	}
	return &driver.Run{Name: "wstest " + c.Encoding, Target: target, Users: w, Steps: steps{c, w}}, nil
}

// steps are WSTest's part of a run: its settings in the results, its users' clients closed.
type steps struct {
	c *Config
	w *Workload
}

// Describe implements driver.Steps.
func (s steps) Describe(_ context.Context, res *report.Results) error { return s.c.describe(res) }

// Close releases the users' clients.
func (s steps) Close() error { s.w.Close(); return nil }

// describe fills the WSTest part of the results.
func (c *Config) describe(res *report.Results) error {
	res.Workload = "wstest"
	res.Scenario = c.Name
	if res.Scenario == "" {
		res.Scenario = c.Methodology + " " + c.MixString()
	}
	res.Target = dsn.Redact(c.Target)
	if c.Encoding == GRPC {
		res.Target = "grpc://" + c.GRPCTarget
		res.Notes = append(res.Notes, "gRPC hits are HTTP/2 responses (status 200, bytes = response message size)")
	}
	res.Settings.Think = c.ThinkOr(scenario.Think{}).String()
	ws, err := report.Section(RunSettings{Encoding: c.Encoding, Methodology: c.Methodology, Mix: c.MixString(), ListSize: c.ListSize, NumBytes: c.NumBytes, MessageSize: c.MessageSize, KeepAlive: c.KeepAlive})
	res.Settings.Workload = ws
	return err
}

// RunSettings are WSTest's own settings in a results file (settings.workload).
type RunSettings struct {
	Encoding    string `json:"encoding"`
	Methodology string `json:"methodology"`
	Mix         string `json:"mix"`
	ListSize    int    `json:"list_size"`
	NumBytes    int    `json:"num_bytes"`
	MessageSize int    `json:"message_size"`
	KeepAlive   bool   `json:"keep_alive"`
}

// SettingsOf reads WSTest's own settings from results (written by this build or read from a
// file of either schema version); report.ErrNoSection when they are not WSTest's.
func SettingsOf(res *report.Results) (RunSettings, error) {
	return report.SectionAs[RunSettings](res.Settings.Workload)
}
