package orders

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tradebench/tradebench/internal/httpserve"
	"github.com/tradebench/tradebench/internal/natsx"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/remote/grpcapi"
	"github.com/tradebench/tradebench/trade/remote/rest"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
)

// Config is the order processing part of `tradebench serve`.
type Config struct {
	Mode Mode // --orders
	// NATS is an external server's URL (--nats); empty starts an embedded server with
	// JetStream storing under WorkDir/nats.
	NATS string
	// NATSPort is the embedded server's port on 127.0.0.1 (0 or -1 = any free port).
	NATSPort int
	// NATSToken is the broker's token (natsx): the embedded server requires it of every
	// client, and every connection (to it or to NATS) presents it, so a process that only
	// knows the broker's address can neither publish orders or quotes nor read them. Empty:
	// the embedded server gets a random token of its own (no other process can join it: give
	// one when serve --role orders or another web tier must), and a NATS connection presents
	// none (a server with its own credentials in the URL).
	NATSToken string
	WorkDir   string
	// HTTPMiddleware, if set, wraps the order processor's REST endpoint (e.g. request metrics).
	HTTPMiddleware func(http.Handler) http.Handler
	// Processor is the order processor's endpoint for async-http (REST, host:port or URL) and
	// async-grpc (host:port), --order-processor; empty in the monolith runs one in-process on a
	// free local port.
	Processor   string
	Concurrency int // orders completed at once by a processor
	Batch       int // durable messages pulled per fetch
	Log         *slog.Logger
	// Auth is the service token the order endpoints (REST, gRPC) require and the async-http
	// and async-grpc dispatchers send, and the dispatchers' TLS configuration (svcauth).
	// An empty token leaves the endpoints open (tests); server.Start always sets one.
	Auth svcauth.Client
	// ServerTLS, if set, serves the order endpoints over TLS (mutual: see svcauth.TLSFiles).
	ServerTLS *tls.Config
}

// SetDefaults fills the zero settings that have a default: the mode (sync), the processor's
// concurrency and batch.
func (c *Config) SetDefaults() {
	if c.Mode == "" {
		c.Mode = Sync
	}
	if c.Concurrency == 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.Batch == 0 {
		c.Batch = DefaultBatch
	}
}

// Validate reports a bad setting: a *setting.Error names the Config field. It checks c as
// SetDefaults leaves it, so a zero field (its default) is never refused.
func (c Config) Validate() error {
	c.SetDefaults()
	if _, err := ParseMode(string(c.Mode)); err != nil {
		return &setting.Error{Field: "Mode", Err: err}
	}
	if c.NATS != "" && !strings.HasPrefix(c.NATS, "nats://") && !strings.HasPrefix(c.NATS, "tls://") {
		return setting.Errorf("NATS", "must be a nats://host:port URL, got %q", c.NATS)
	}
	switch {
	case c.NATSPort < -1 || c.NATSPort > 65535:
		return setting.Errorf("NATSPort", "must be a port 1..65535 (0 or -1: any free port), got %d", c.NATSPort)
	case c.NATSPort > 0 && c.NATS == "" && c.Mode != AsyncDurable && c.Mode != AsyncVolatile:
		// the embedded broker runs for the queued order modes only: a port for it would be a
		// promise nothing keeps, and processes told to connect there would find no one
		return setting.Errorf("NATSPort",
			"the embedded NATS server runs only in the async-durable and async-volatile order modes; in %s mode run a NATS server and give "+
				"every process its URL (live quotes between processes)", c.Mode)
	}
	if c.NATSToken != "" {
		if err := natsx.ValidateToken(c.NATSToken); err != nil {
			return &setting.Error{Field: "NATSToken", Err: err}
		}
	}
	if c.Concurrency < 1 || c.Concurrency > MaxConcurrency {
		return setting.Errorf("Concurrency", "must be between 1 and %d, got %d", MaxConcurrency, c.Concurrency)
	}
	if c.Batch < 1 || c.Batch > MaxBatch {
		return setting.Errorf("Batch", "must be between 1 and %d, got %d", MaxBatch, c.Batch)
	}
	return nil
}

// Running is the order processing machinery a process started; Close stops it.
type Running struct {
	// Dispatch is what the service hands placed orders to (nil in sync mode).
	Dispatch business.OrderDispatcher
	// NATSURL is the broker in use ("" when none).
	NATSURL string
	// NATSToken is the token its connections present (Config.NATSToken, or the embedded
	// server's own): the quote stream's connection uses it too.
	NATSToken string
	// HTTPAddr and GRPCAddr are the processor's endpoints when this process serves them.
	HTTPAddr, GRPCAddr string
	// Processor is the in-process order processor, if this process runs one.
	Processor *Processor

	cancel  context.CancelFunc
	wg      sync.WaitGroup
	closers []func()

	initOnce, failOnce sync.Once
	failed             chan struct{}
	err                error
}

// Close stops consumers, the relay, endpoints, connections and an embedded server, in reverse.
func (r *Running) Close() {
	if r == nil {
		return
	}
	if r.cancel != nil {
		r.cancel()
	}
	r.wg.Wait()
	for i := len(r.closers) - 1; i >= 0; i-- {
		r.closers[i]()
	}
}

func (r *Running) goRun(f func() error, log *slog.Logger, what string) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		if err := f(); err != nil {
			logger(log).Error(what, "err", err)
			r.failOnce.Do(func() {
				r.err = fmt.Errorf("%s: %w", what, err)
				close(r.failedCh())
			})
		}
	}()
}

func (r *Running) failedCh() chan struct{} {
	r.initOnce.Do(func() { r.failed = make(chan struct{}) })
	return r.failed
}

// Failed is closed when a consumer, the relay or the processor stopped with an error (Err says
// which and why); nil-safe: a nil Running never fails.
func (r *Running) Failed() <-chan struct{} {
	if r == nil {
		return nil
	}
	return r.failedCh()
}

// Err is why Failed was closed.
func (r *Running) Err() error {
	select {
	case <-r.Failed():
		return r.err
	default:
		return nil
	}
}

// broker connects to c.NATS or starts the embedded server (JetStream under WorkDir/nats).
func (r *Running) broker(ctx context.Context, c Config, name string) (*nats.Conn, jetstream.JetStream, error) {
	dir := c.WorkDir
	if dir == "" {
		dir = DefaultWorkDir
	}
	dir = filepath.Join(dir, "nats")
	b, err := natsx.Dial(natsx.BrokerConfig{URL: c.NATS, Token: c.NATSToken, ConnName: name,
		Server: natsx.ServerConfig{Name: "tradebench", Addr: "127.0.0.1:" + strconv.Itoa(max(c.NATSPort, 0)), JetStreamDir: dir}})
	if err != nil {
		return nil, nil, err
	}
	r.closers = append(r.closers, b.Close)
	if b.Embedded != nil {
		logger(c.Log).Info("embedded NATS with JetStream started", "url", b.URL, "dir", dir)
	}
	nc := b.Conn
	r.NATSURL, r.NATSToken = b.URL, b.Token
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, nil, err
	}
	if _, err := EnsureStream(ctx, js); err != nil {
		return nil, nil, err
	}
	return nc, js, nil
}

// StartServices starts what the services tier needs for c.Mode (broker connection, relay,
// processor client) and returns the service svc builds with the mode's dispatcher (nil in
// sync mode). With local set (the monolith) it also runs an order
// processor in this process; without it (the web/bsl roles) `serve --role orders` completes
// the orders.
func StartServices(ctx context.Context, c Config, svc func(business.OrderDispatcher) *business.Service,
	local bool) (*Running, *business.Service, error) {
	if err := c.Validate(); err != nil {
		return nil, nil, err
	}
	r := &Running{}
	ctx, r.cancel = context.WithCancel(context.WithoutCancel(ctx))
	fail := func(err error) (*Running, *business.Service, error) { r.Close(); return nil, nil, err }
	switch c.Mode {
	case Sync:
		return r, svc(nil), nil
	case AsyncDurable, AsyncVolatile:
		nc, js, err := r.broker(ctx, c, "tradebench-services")
		if err != nil {
			return fail(err)
		}
		var s *business.Service
		if c.Mode == AsyncDurable {
			s = svc(&DurableDispatcher{JS: js, Log: c.Log})
			relay := &Relay{Store: s.Store(), JS: js, Log: c.Log}
			r.goRun(func() error { return relay.Run(ctx) }, c.Log, "order relay")
		} else {
			s = svc(&VolatileDispatcher{NC: nc})
		}
		r.Dispatch = s.Options().Dispatch
		if local {
			p := &Processor{Orders: s, Concurrency: c.Concurrency, Batch: c.Batch, Log: c.Log}
			r.Processor = p
			var err error
			if c.Mode == AsyncDurable {
				err = r.runProcessor(ctx, p, nil, js, c.Log)
			} else {
				err = r.runProcessor(ctx, p, nc, nil, c.Log)
			}
			if err != nil {
				return fail(err)
			}
		}
		return r, s, nil
	case AsyncHTTP, AsyncGRPC:
		addr := c.Processor
		if addr == "" {
			if !local {
				return fail(setting.Errorf("Processor", "order mode %s needs the address of the order processor (an orders role)", c.Mode))
			}
			// The monolith's own processor endpoint, on a free local port: still real TCP.
			if err := r.endpoints(c, svc(nil), "127.0.0.1:0", "127.0.0.1:0"); err != nil {
				return fail(err)
			}
			addr = r.HTTPAddr
			if c.Mode == AsyncGRPC {
				addr = r.GRPCAddr
			}
		}
		var proc remoteProcessor
		var err error
		if c.Mode == AsyncHTTP {
			if !strings.Contains(addr, "://") {
				addr = c.Auth.Scheme() + "://" + addr
			}
			proc, err = rest.NewClient(addr, rest.Options{Auth: c.Auth})
		} else {
			proc, err = grpcapi.NewClient(addr, grpcapi.Options{Auth: c.Auth})
		}
		if err != nil {
			return fail(&setting.Error{Field: "Processor", Err: err})
		}
		d := &DirectDispatcher{Proc: proc, Concurrency: c.Concurrency, Log: c.Log}
		r.closers = append(r.closers, func() { d.Wait(); _ = proc.Close() })
		r.Dispatch = d
		return r, svc(d), nil
	}
	return fail(setting.Errorf("Mode", "unknown mode %q", c.Mode))
}

// remoteProcessor is a remote order processor client.
type remoteProcessor interface {
	trade.OrderProcessor
	Close() error
}

// endpoints serves the order processor over REST on httpAddr and gRPC on grpcAddr ("" = not).
func (r *Running) endpoints(c Config, s *business.Service, httpAddr, grpcAddr string) error {
	if r.Processor == nil {
		r.Processor = &Processor{Orders: s, Concurrency: c.Concurrency, Batch: c.Batch, Log: c.Log}
	}
	if httpAddr != "" {
		ln, err := net.Listen("tcp", httpAddr)
		if err != nil {
			return fmt.Errorf("order processor HTTP endpoint: %w", err)
		}
		rh := rest.NewHandler(s, rest.HandlerOptions{Processor: r.Processor, Logger: c.Log})
		// /healthz answers without the token, as the services host's does (load balancers)
		var h http.Handler = svcauth.RequireHTTP(c.Auth.Token, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if req.URL.Path == "/healthz" {
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
				w.Write([]byte("ok\n"))
				return
			}
			rh.ServeHTTP(w, req)
		}), func(w http.ResponseWriter, _ *http.Request) {
			rest.WriteProblem(w, http.StatusUnauthorized, rest.CodeServiceToken, svcauth.Refusal)
		}, "/healthz")
		if c.HTTPMiddleware != nil {
			h = c.HTTPMiddleware(h) // outermost: refused callers count too
		}
		hs := httpserve.New(h, httpserve.Options{Logger: logger(c.Log)})
		hs.TLSConfig = c.ServerTLS
		r.HTTPAddr = ln.Addr().String()
		if c.ServerTLS != nil {
			go func() { _ = hs.ServeTLS(ln, "", "") }()
		} else {
			go func() { _ = hs.Serve(ln) }()
		}
		r.closers = append(r.closers, func() {
			// let completions in flight finish: an async-http order cut off here stays open
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if hs.Shutdown(ctx) != nil {
				_ = hs.Close()
			}
		})
	}
	if grpcAddr != "" {
		ln, err := net.Listen("tcp", grpcAddr)
		if err != nil {
			return fmt.Errorf("order processor gRPC endpoint: %w", err)
		}
		gs := grpcapi.NewServer(s, grpcapi.ServerOptions{Processor: r.Processor, Logger: c.Log, Extra: svcauth.GRPCServerOptions(c.Auth.Token,
			c.ServerTLS)})
		r.GRPCAddr = ln.Addr().String()
		go func() { _ = gs.Serve(httpserve.LimitPerClient(ln, 0)) }()
		r.closers = append(r.closers, func() { gracefulStop(gs, 5*time.Second) })
	}
	return nil
}

// StartProcessor runs the order processor role on s: it consumes the durable stream and the
// volatile subject of the broker (c.NATS, or an embedded one) and serves the REST and gRPC
// endpoints on httpAddr and grpcAddr ("" = not served), all at once.
func StartProcessor(ctx context.Context, c Config, s *business.Service, httpAddr, grpcAddr string) (*Running, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if s.Options().Dispatch != nil {
		return nil, errors.New("the order processor's service must complete orders itself (no dispatcher)")
	}
	r := &Running{}
	ctx, r.cancel = context.WithCancel(context.WithoutCancel(ctx))
	if err := r.endpoints(c, s, httpAddr, grpcAddr); err != nil {
		r.Close()
		return nil, err
	}
	p := r.Processor
	if c.NATS == "" && (c.Mode == AsyncHTTP || c.Mode == AsyncGRPC || c.Mode == Sync) {
		// A processor on its own with no broker named: an embedded broker nobody else knows
		// would only look like it works, so take orders over the endpoints alone.
		logger(c.Log).Info("order processor without a broker: taking orders over REST and gRPC only (give a NATS URL for the queues)")
		return r, nil
	}
	nc, js, err := r.broker(ctx, c, "tradebench-orders")
	if err != nil {
		r.Close()
		return nil, err
	}
	if err := r.runProcessor(ctx, p, nc, js, c.Log); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// runProcessor starts p.Run and waits until it is ready (its volatile subscription reached the
// server: orders published before would be lost), or returns why it stopped first.
func (r *Running) runProcessor(ctx context.Context, p *Processor, nc *nats.Conn, js jetstream.JetStream, log *slog.Logger) error {
	stopped := make(chan error, 1)
	r.goRun(func() error { err := p.Run(ctx, nc, js); stopped <- err; return err }, log, "order processor")
	t := time.NewTimer(10 * time.Second)
	defer t.Stop()
	select {
	case <-p.Ready():
		return nil
	case err := <-stopped:
		if err == nil {
			err = errors.New("stopped before it was ready")
		}
		return fmt.Errorf("the order processor: %w", err)
	case <-t.C:
		return errors.New("the order processor did not subscribe to the volatile queue within 10s")
	}
}

// gracefulStop lets calls in flight finish, for at most d, then cuts them.
func gracefulStop(gs interface {
	GracefulStop()
	Stop()
}, d time.Duration) {
	done := make(chan struct{})
	go func() { gs.GracefulStop(); close(done) }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		gs.Stop()
	}
}
