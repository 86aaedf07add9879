package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/tradebench/tradebench/internal/cliflag"
	"github.com/tradebench/tradebench/internal/testing/netfault"
)

// netfault is the test bed's network fault between two tiers (scripts/testbed crash net,
// docs/testbed.md): a TCP proxy placed between them, cut or slowed on request. It is a part of
// the test bed, not of the product, so `tradebench --help` does not list it.
func init() {
	register(&command{name: "netfault", hidden: true, summary: "the test bed's TCP proxy between two tiers, cut or delayed on request", run: runNetfault})
}

// Bounds on a fault asked for over the control socket.
const (
	maxNetfaultFor   = 10 * time.Minute
	maxNetfaultDelay = time.Minute
)

func runNetfault(ctx context.Context, args []string) error {
	fs := cliflag.NewFlagSet("tradebench netfault", "[--forward LISTEN=TARGET]... --control SOCKET")
	var forwards []string
	fs.Func("forward", "forward TCP connections accepted on LISTEN (host:port) to TARGET (host:port); repeatable", func(v string) error {
		l, tg, ok := strings.Cut(v, "=")
		if !ok || l == "" || tg == "" {
			return fmt.Errorf("want LISTEN=TARGET, got %q", v)
		}
		forwards = append(forwards, v)
		return nil
	})
	control := fs.String("control", "", "a Unix socket to take the faults on: POST /cut?for=DURATION, POST /delay?by=DURATION&for=DURATION; GET /status")
	if err := cliflag.Parse(fs, args, false); err != nil {
		return err
	}
	if len(forwards) == 0 || *control == "" {
		return fmt.Errorf("%w: --forward and --control are required", cliflag.ErrUsage)
	}
	var proxies []*netfault.Proxy
	defer func() {
		for _, p := range proxies {
			p.Close()
		}
	}()
	for _, f := range forwards {
		l, tg, _ := strings.Cut(f, "=")
		p, err := netfault.Listen(l, tg)
		if err != nil {
			return err
		}
		proxies = append(proxies, p)
		go p.Serve()
	}
	os.Remove(*control)
	ln, err := net.Listen("unix", *control)
	if err != nil {
		return err
	}
	// Whoever can connect can cut the test bed's network: the socket is its owner's alone,
	// whatever the umask.
	if err := os.Chmod(*control, 0o600); err != nil {
		ln.Close()
		return err
	}
	srv := &http.Server{Handler: netfaultControl(ctx, proxies), ReadHeaderTimeout: 10 * time.Second}
	go func() { <-ctx.Done(); srv.Close() }()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// netfaultWindow is a fault's window as the control socket answers it: when the fault began and
// when the path was whole again.
type netfaultWindow struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// netfaultControl serves the control socket. A fault's request is answered when the fault is
// over (the path healed), with its window; one fault at a time.
func netfaultControl(ctx context.Context, proxies []*netfault.Proxy) http.Handler {
	busy := make(chan struct{}, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") })
	fault := func(start func(*netfault.Proxy, time.Duration)) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			dur, err := boundedDuration(r.URL.Query().Get("for"), "for", maxNetfaultFor)
			var by time.Duration
			if err == nil && r.URL.Path == "/delay" {
				by, err = boundedDuration(r.URL.Query().Get("by"), "by", maxNetfaultDelay)
			}
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			select {
			case busy <- struct{}{}:
				defer func() { <-busy }()
			default:
				http.Error(w, "a fault is in progress", http.StatusConflict)
				return
			}
			win := netfaultWindow{Start: time.Now().UTC()}
			for _, p := range proxies {
				start(p, by)
			}
			t := time.NewTimer(dur)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
			}
			for _, p := range proxies {
				p.Heal()
			}
			win.End = time.Now().UTC()
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(win)
		}
	}
	mux.HandleFunc("POST /cut", fault(func(p *netfault.Proxy, _ time.Duration) { p.Cut() }))
	mux.HandleFunc("POST /delay", fault(func(p *netfault.Proxy, by time.Duration) { p.Delay(by) }))
	return mux
}

// boundedDuration parses a control request's duration parameter: positive, at most max.
func boundedDuration(v, name string, max time.Duration) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 || d > max {
		return 0, fmt.Errorf("%s: want a duration above 0 and at most %v, got %q", name, max, v)
	}
	return d, nil
}
