package natsx

import (
	"time"

	"github.com/nats-io/nats.go"
)

// BrokerConfig says where a process's broker is: an existing NATS server or cluster (URL), or
// an embedded server the process starts (Server) — the one choice the load fleet's controller
// and the order processing both make.
type BrokerConfig struct {
	// URL is an existing server or cluster, e.g. nats://nats:4222; empty starts Server.
	URL string
	// Server is the embedded server to start when URL is empty. Its Token is Token (set here,
	// not there).
	Server ServerConfig
	// Token is presented by the connection and required by an embedded server. Empty with an
	// embedded server: a random token of its own, so no other process can join it (see
	// Broker.Token); empty with URL: none is presented (a server with its own credentials in
	// the URL).
	Token string
	// ConnName is the connection's name, shown by the server.
	ConnName string
}

// Broker is a connection to a process's broker, and the embedded server if it started one.
type Broker struct {
	Conn *nats.Conn
	// URL is the URL connected to: BrokerConfig.URL, or the embedded server's client URL.
	URL string
	// Token is the token the connection presents (BrokerConfig.Token or the generated one):
	// another connection of the same process to the same broker uses it too.
	Token string
	// Embedded is the server this broker started, nil when it connected to URL.
	Embedded *Server
}

// Dial starts the embedded server when c.URL is empty and connects to it, or connects to
// c.URL, with the kit's reconnect policy (Connect). It leaves nothing running when it fails:
// an embedded server whose connection failed is stopped again.
func Dial(c BrokerConfig) (*Broker, error) {
	b := &Broker{URL: c.URL, Token: c.Token}
	if c.URL == "" {
		if b.Token == "" {
			b.Token = NewToken()
		}
		sc := c.Server
		sc.Token = b.Token
		e, err := Start(sc)
		if err != nil {
			return nil, err
		}
		b.Embedded, b.URL = e, e.URL()
	}
	nc, err := Connect(b.URL, ConnectConfig{Name: c.ConnName, Token: b.Token})
	if err != nil {
		if b.Embedded != nil {
			b.Embedded.Shutdown()
		}
		return nil, err
	}
	b.Conn = nc
	return b, nil
}

// CloseFlushWait bounds how long Close waits for what the connection still buffers (published
// orders, acks, a controller's last commands) to reach a connected broker.
const CloseFlushWait = 5 * time.Second

// Close flushes the connection while it is connected (at most CloseFlushWait), closes it, and
// stops the embedded server, in that order: Flush then Close, not Drain — Drain returns at once,
// and the server's shutdown (or the process's exit) right after it could lose what was buffered.
// A broker lost at the end is not waited for.
func (b *Broker) Close() {
	if b.Conn.IsConnected() {
		_ = b.Conn.FlushTimeout(CloseFlushWait)
	}
	b.Conn.Close()
	if b.Embedded != nil {
		b.Embedded.Shutdown()
	}
}
