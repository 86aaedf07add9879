// Package natsx is the kit's one way to run and reach NATS: an embedded server (the fleet's
// broker, serve's order broker with JetStream) and a client connection, both authenticated with
// one token and with one reconnect policy. Every NATS server the kit starts requires the token,
// so a process that only knows the broker's address can neither publish nor subscribe: an
// open broker let anyone command load agents, forge their results, and push fake quotes to
// every live stream.
package natsx

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/tradebench/tradebench/internal/dsn"
	"github.com/tradebench/tradebench/internal/secretfile"
)

// EnvToken is the environment variable a process reads its NATS token from (flags show in ps).
const EnvToken = "TRADEBENCH_NATS_TOKEN"

// DefaultTokenFile is where a process that starts a broker with no token configured writes
// the one it generates (in its working directory), and where a client with none configured
// looks for one.
const DefaultTokenFile = "tradebench-nats-token"

// MinTokenLen is the shortest token accepted: shorter secrets can be guessed over the network.
const MinTokenLen = 16

// ReconnectWait is the pause between reconnect attempts. A connection reconnects for ever and
// buffers what is published meanwhile, so a broker restart interrupts a run without ending it.
const ReconnectWait = 250 * time.Millisecond

// ServerConfig configures an embedded server.
type ServerConfig struct {
	Name string // the server's name in NATS' own monitoring
	// Addr is host:port to listen on (port 0 picks a free one; an empty host is 0.0.0.0).
	Addr string
	// Token is required of every client; empty is refused (an open broker is an open relay).
	Token string
	// JetStreamDir, if set, enables JetStream storing its files there.
	JetStreamDir string
	// MaxPayload is the largest message taken (0 = NATS' default, 1 MB).
	MaxPayload int32
}

// Server is an embedded NATS server.
type Server struct{ srv *server.Server }

// Start starts an embedded server and waits until it takes connections.
func Start(c ServerConfig) (*Server, error) {
	if err := ValidateToken(c.Token); err != nil {
		return nil, fmt.Errorf("embedded NATS: %w", err)
	}
	host, ps, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return nil, fmt.Errorf("%q: want host:port, e.g. 0.0.0.0:4222: %v", c.Addr, err)
	}
	port, err := parsePort(ps)
	if err != nil {
		return nil, fmt.Errorf("%q: %v", c.Addr, err)
	}
	if host == "" {
		host = "0.0.0.0"
	}
	o := &server.Options{ServerName: c.Name, Host: host, Port: port, NoSigs: true, NoLog: true,
		Authorization: c.Token, MaxPayload: c.MaxPayload}
	if c.JetStreamDir != "" {
		o.JetStream, o.StoreDir = true, c.JetStreamDir
	}
	srv, err := server.NewServer(o)
	if err != nil {
		return nil, fmt.Errorf("embedded NATS: %w", err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(30 * time.Second) {
		srv.Shutdown()
		return nil, errors.New("embedded NATS did not start within 30s (is the address in use?)")
	}
	return &Server{srv: srv}, nil
}

func parsePort(s string) (int, error) {
	var p int
	if _, err := fmt.Sscan(s, &p); err != nil || p < -1 || p > 65535 || fmt.Sprint(p) != s {
		return 0, errors.New("the port must be a number 0..65535")
	}
	if p <= 0 {
		return server.RANDOM_PORT, nil
	}
	return p, nil
}

// URL is the client URL (nats://host:port).
func (s *Server) URL() string { return s.srv.ClientURL() }

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.srv.Addr() }

// Shutdown stops the server and waits for it.
func (s *Server) Shutdown() {
	s.srv.Shutdown()
	s.srv.WaitForShutdown()
}

// ConnectConfig configures a client connection.
type ConnectConfig struct {
	Name  string // the connection's name, shown by the server
	Token string // the broker's token ("" = none: a broker that requires one refuses)
	// Retry keeps trying a server that is not up yet (an agent started before its broker, as a
	// Kubernetes Deployment may be) instead of failing.
	Retry bool
	// Timeout bounds the dial (0 = nats.go's default, 2 s).
	Timeout time.Duration
}

// Connect connects to url with the kit's reconnect policy: for ever, ReconnectWait apart.
func Connect(url string, c ConnectConfig) (*nats.Conn, error) {
	opts := []nats.Option{nats.Name(c.Name), nats.MaxReconnects(-1), nats.ReconnectWait(ReconnectWait)}
	if c.Token != "" {
		opts = append(opts, nats.Token(c.Token))
	}
	if c.Retry {
		opts = append(opts, nats.RetryOnFailedConnect(true))
	}
	if c.Timeout > 0 {
		opts = append(opts, nats.Timeout(c.Timeout))
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("connecting to NATS at %s: %w", dsn.Redact(url), err)
	}
	return nc, nil
}

// NewToken returns a random token (32 bytes, base64url).
func NewToken() string { return secretfile.New() }

// ValidateToken refuses a token too short to be a secret or that cannot travel in NATS' CONNECT.
func ValidateToken(t string) error {
	if len(t) < MinTokenLen {
		return fmt.Errorf("NATS token is %d characters; use at least %d (e.g. the output of `head -c 32 /dev/urandom | base64`)", len(t), MinTokenLen)
	}
	for _, c := range []byte(t) {
		if c <= ' ' || c >= 0x7f || c == '"' || c == '\\' {
			return errors.New("NATS token must be printable ASCII without spaces, quotes or backslashes")
		}
	}
	return nil
}

// ErrNoToken is ResolveToken's answer when no token is configured and none is to be generated.
var ErrNoToken = errors.New("no NATS token: set $" + EnvToken + " or give the broker's token file (" + DefaultTokenFile + " where the broker started)")

// ResolveToken finds a process's NATS token: $TRADEBENCH_NATS_TOKEN, else the file given
// (which must exist and be readable by this user only), else DefaultTokenFile in the working
// directory if it exists. With none of them, generate writes a new token to DefaultTokenFile
// (0600) — a process starting a broker others join — and says so with created, so that a
// process that then fails to start can remove it (a refused command leaves nothing behind);
// otherwise it is ErrNoToken, naming what to set. path is the file the token came from ("" for
// the environment).
func ResolveToken(file string, generate bool) (token, path string, created bool, err error) {
	if t := os.Getenv(EnvToken); t != "" {
		if err := ValidateToken(t); err != nil {
			return "", "", false, fmt.Errorf("$%s: %w", EnvToken, err)
		}
		return t, "", false, nil
	}
	if file != "" {
		t, err := readTokenFile(file)
		return t, file, false, err
	}
	t, err := readTokenFile(DefaultTokenFile)
	switch {
	case err == nil:
		return t, DefaultTokenFile, false, nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", "", false, err
	case !generate:
		return "", "", false, ErrNoToken
	}
	t, err = secretfile.Create(DefaultTokenFile)
	if err != nil {
		return "", "", false, fmt.Errorf("writing a generated NATS token: %w", err)
	}
	return t, DefaultTokenFile, true, nil
}

func readTokenFile(path string) (string, error) {
	return secretfile.Read(path, "NATS token", ValidateToken)
}
