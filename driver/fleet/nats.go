package fleet

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Connect connects to NATS for a controller or an agent. The connection reconnects for ever
// (a quarter second apart) and buffers what is published meanwhile, so a broker restart
// interrupts a run without losing an agent. retry also keeps trying a server that is not up yet
// (an agent started before its broker, as a Kubernetes Deployment may be).
func Connect(url, name string, retry bool) (*nats.Conn, error) {
	opts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(250 * time.Millisecond)}
	if retry {
		opts = append(opts, nats.RetryOnFailedConnect(true))
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("connecting to NATS at %s: %w", url, err)
	}
	return nc, nil
}

// Broker is an embedded NATS server (core NATS only: the fleet keeps nothing on disk), the
// one-command case of a distributed run: the controller listens, agents join.
type Broker struct{ srv *server.Server }

// Listen starts an embedded NATS server on addr (host:port; port 0 picks a free one).
func Listen(addr string) (*Broker, error) {
	host, ps, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%q: want host:port, e.g. 0.0.0.0:4222: %v", addr, err)
	}
	port, err := strconv.Atoi(ps)
	if err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("%q: the port must be a number 0..65535", addr)
	}
	if port == 0 {
		port = server.RANDOM_PORT
	}
	if host == "" {
		host = "0.0.0.0"
	}
	srv, err := server.NewServer(&server.Options{ServerName: "tradebench-fleet", Host: host, Port: port, NoSigs: true, NoLog: true,
		MaxPayload: maxPayload})
	if err != nil {
		return nil, fmt.Errorf("embedded NATS: %w", err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		return nil, errors.New("embedded NATS did not start within 10s (is the address in use?)")
	}
	return &Broker{srv: srv}, nil
}

// maxPayload is the largest message the embedded broker takes: NATS's default (1 MB) bounds an
// agent's final results too tightly for a scenario with many transactions.
const maxPayload = 8 << 20

// URL is the client URL agents on this machine use (nats://host:port).
func (b *Broker) URL() string { return b.srv.ClientURL() }

// Addr is the address the broker listens on.
func (b *Broker) Addr() net.Addr { return b.srv.Addr() }

// Shutdown stops the broker and waits for it.
func (b *Broker) Shutdown() {
	b.srv.Shutdown()
	b.srv.WaitForShutdown()
}
