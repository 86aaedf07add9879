package metrics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/tradebench/tradebench/internal/httpserve"
)

// Path is where the endpoint serves the metrics.
const Path = "/metrics"

// Endpoint is a server's metrics listener. It is separate from the server's own listeners, on
// an address the operator chooses (--metrics-listen): the numbers describe the machine and the
// traffic (CPU, memory, request rates), which is not for strangers, and a listener of its own
// can be bound to loopback or to a monitoring network while the application faces users.
// Scrapes on it are not counted as the application's requests.
type Endpoint struct {
	srv  *http.Server
	ln   net.Listener
	done chan struct{}
}

// Listen serves reg at Path on addr ("127.0.0.1:0" picks a free port) until Close or ctx ends,
// with at most httpserve.DefaultMaxConns connections at once.
func Listen(ctx context.Context, addr string, reg *Registry, log *slog.Logger) (*Endpoint, error) {
	return ListenGuarded(ctx, addr, reg, log, nil)
}

// ListenGuarded is Listen with the requests checked by httpserve.Guard (g's Listen is addr): the
// driver's endpoint, which a browser on the machine may reach. The servers' endpoints are not
// guarded by Host, since Prometheus scrapes them by whatever name a deployment gives them.
func ListenGuarded(ctx context.Context, addr string, reg *Registry, log *slog.Logger, g *httpserve.GuardOptions) (*Endpoint, error) {
	if log == nil {
		log = slog.Default()
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: listen on %s: %w", addr, err)
	}
	ln = httpserve.MaxConns(ln, 0)
	mux := http.NewServeMux()
	mux.Handle("GET "+Path, reg.Handler())
	var h http.Handler = mux
	if g != nil {
		o := *g
		o.Listen = addr
		h = httpserve.Guard(mux, o)
	}
	e := &Endpoint{ln: ln, done: make(chan struct{})}
	e.srv = httpserve.New(h, httpserve.Options{Logger: log})
	go func() {
		defer close(e.done)
		if err := e.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics endpoint stopped", "err", err)
		}
	}()
	go func() {
		select {
		case <-ctx.Done():
			e.Close()
		case <-e.done:
		}
	}()
	return e, nil
}

// Addr is the bound address (host:port); "" for a nil Endpoint (none configured).
func (e *Endpoint) Addr() string {
	if e == nil {
		return ""
	}
	return e.ln.Addr().String()
}

// URL is the scrape URL, e.g. http://127.0.0.1:9464/metrics; "" for a nil Endpoint.
func (e *Endpoint) URL() string {
	if e == nil {
		return ""
	}
	return "http://" + e.Addr() + Path
}

// Close stops the endpoint; a scrape in flight gets a second to finish. Nil-safe.
func (e *Endpoint) Close() error {
	if e == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := e.srv.Shutdown(ctx)
	if err != nil {
		err = e.srv.Close()
	}
	<-e.done
	return err
}
