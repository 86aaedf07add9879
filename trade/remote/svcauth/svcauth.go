// Package svcauth authenticates callers of the business services host and of the order
// processor's endpoints: a shared secret, the service token, sent as "Authorization: Bearer
// TOKEN" on HTTP (SOAP, REST) and as "authorization" metadata on gRPC, compared in constant
// time; and optional mutual TLS for deployments across machines. The server side is HTTP
// middleware and gRPC interceptors, the client side an http.RoundTripper and gRPC per-RPC
// credentials, so no transport's codec knows about either.
//
// Without it, anyone who could reach the host's port (its address is on the public config
// page) could read any profile with its credit card number, change any password and trade
// for any account.
package svcauth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/tap"

	"github.com/tradebench/tradebench/internal/secretfile"
	"github.com/tradebench/tradebench/trade"
)

// EnvToken is the environment variable a process reads its service token from (flags show in ps).
const EnvToken = "TRADEBENCH_SERVICE_TOKEN"

// DefaultTokenFile is where a services host or order processor with no token configured
// writes the one it generates (in its working directory), and where a process with none
// configured looks for one.
const DefaultTokenFile = "tradebench-service-token"

// MinTokenLen is the shortest token accepted: shorter secrets can be guessed over the network.
const MinTokenLen = 16

// NewToken returns a random token (32 bytes, base64url).
func NewToken() string { return secretfile.New() }

// Validate refuses a token too short to be a secret or that cannot travel in a header.
func Validate(token string) error {
	if len(token) < MinTokenLen {
		return fmt.Errorf("service token is %d characters; use at least %d (e.g. the output of `head -c 32 /dev/urandom | base64`)", len(token),
			MinTokenLen)
	}
	for _, c := range []byte(token) {
		if c <= ' ' || c >= 0x7f {
			return errors.New("service token must be printable ASCII without spaces")
		}
	}
	return nil
}

// ReadTokenFile reads a token from path (surrounding whitespace trimmed). A file that others
// can read is refused: the token is the key to every account.
func ReadTokenFile(path string) (string, error) {
	return secretfile.Read(path, "service token", Validate)
}

// WriteTokenFile writes a new random token to path, readable only by this user (0600), and
// returns it. It does not overwrite an existing file.
func WriteTokenFile(path string) (string, error) { return secretfile.Create(path) }

// Source says where a resolved token came from, for the log line that tells the operator.
type Source string

const (
	FromEnv       Source = "$" + EnvToken
	FromFile      Source = "file"
	Generated     Source = "generated"
	PerProcess    Source = "per-process" // the monolith's own loopback calls
	NotConfigured Source = ""
)

// Resolve finds a process's token: $TRADEBENCH_SERVICE_TOKEN, else the file given (which must
// exist), else DefaultTokenFile in the working directory if it exists. With none of them, a
// process that serves an authenticated endpoint (generate) writes a new token to
// DefaultTokenFile; otherwise the result is NotConfigured and the caller decides.
func Resolve(file string, generate bool) (token string, src Source, path string, err error) {
	if t := os.Getenv(EnvToken); t != "" {
		if err := Validate(t); err != nil {
			return "", "", "", fmt.Errorf("$%s: %w", EnvToken, err)
		}
		return t, FromEnv, "", nil
	}
	if file != "" {
		t, err := ReadTokenFile(file)
		return t, FromFile, file, err
	}
	t, err := ReadTokenFile(DefaultTokenFile)
	switch {
	case err == nil:
		return t, FromFile, DefaultTokenFile, nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", "", "", err
	case !generate:
		return "", NotConfigured, "", nil
	}
	t, err = WriteTokenFile(DefaultTokenFile)
	if err != nil {
		return "", "", "", fmt.Errorf("writing a generated service token: %w", err)
	}
	return t, Generated, DefaultTokenFile, nil
}

// checker compares presented tokens with the expected one in constant time; both sides are
// hashed first so the comparison does not even leak the length.
// No behavioural test can check the constant time: a plain comparison (bytes.Equal, ==)
// answers the same for every input and differs only in timing, so that mutant survives every
// test. Keep it; review, not a test, guards it.
type checker [sha256.Size]byte

func newChecker(token string) checker { return sha256.Sum256([]byte(token)) }

func (c *checker) ok(authorization string) bool {
	t, found := strings.CutPrefix(authorization, "Bearer ")
	if !found {
		return false
	}
	got := sha256.Sum256([]byte(t))
	return subtle.ConstantTimeCompare(got[:], c[:]) == 1
}

// ClientHeader (HTTP) and clientMD (gRPC metadata) carry the end client's address
// (trade.WithClient) from a web tier to the services host. The host believes it only from a
// caller that sent the service token; others' calls are refused anyway.
const (
	ClientHeader = "Tradebench-Client"
	clientMD     = "tradebench-client"
)

// Refusal is the message a refused caller gets: it says what is missing, never the token.
const Refusal = "missing or wrong service token: send Authorization: Bearer <token> (the token is in $" + EnvToken + " or the services host's " +
	"token file)"

// RequireHTTP passes to h only requests carrying the token; others get deny (which answers
// 401 in its transport's format). open lists paths served without the token (health checks).
// An empty token turns the check off (library callers and tests that build a host by hand;
// server.Start always sets one).
func RequireHTTP(token string, h http.Handler, deny func(http.ResponseWriter, *http.Request), open ...string) http.Handler {
	if token == "" {
		return h
	}
	c := newChecker(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c.ok(r.Header.Get("Authorization")) {
			client := r.Header.Get(ClientHeader)
			if client == "" {
				client = r.RemoteAddr
			}
			h.ServeHTTP(w, r.WithContext(trade.WithClient(r.Context(), client)))
			return
		}
		for _, p := range open {
			if r.URL.Path == p {
				h.ServeHTTP(w, r)
				return
			}
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="tradebench services"`)
		deny(w, r)
	})
}

// GRPCServerOptions returns the check that refuses calls without the token (UNAUTHENTICATED),
// and the TLS credentials when tlsConf is set. An empty token adds no check.
//
// The check is a tap handle: grpc-go runs it when a stream's headers arrive, before it
// registers the stream or starts a goroutine for its handler. An interceptor runs only after
// both, so 100,000 streams opened without a token on one connection would hold 100,000
// goroutines and 1.2 GB waiting for a message that never comes.
func GRPCServerOptions(token string, tlsConf *tls.Config) []grpc.ServerOption {
	var so []grpc.ServerOption
	if tlsConf != nil {
		so = append(so, grpc.Creds(credentials.NewTLS(tlsConf)))
	}
	if token == "" {
		return so
	}
	c := newChecker(token)
	return append(so, grpc.InTapHandle(func(ctx context.Context, info *tap.Info) (context.Context, error) {
		for _, v := range info.Header.Get("authorization") {
			if c.ok(v) {
				client := ""
				if cs := info.Header.Get(clientMD); len(cs) > 0 {
					client = cs[0]
				} else if p, ok := peer.FromContext(ctx); ok {
					client = p.Addr.String()
				}
				return trade.WithClient(ctx, client), nil
			}
		}
		return nil, status.Error(codes.Unauthenticated, Refusal)
	}))
}

// Client is what a caller presents to a services host or an order endpoint: the token and,
// for mutual TLS, its TLS configuration. The zero value presents nothing (a host without a
// token accepts it). Every client of the kit (web tiers, order dispatchers, the smart client)
// takes one.
type Client struct {
	Token string
	TLS   *tls.Config // nil = plain TCP
}

// Transport wraps rt so every request carries the token.
func (c Client) Transport(rt http.RoundTripper) http.RoundTripper {
	if c.Token == "" {
		return rt
	}
	return &bearer{rt: rt, value: "Bearer " + c.Token}
}

// Scheme is "https" with TLS, else "http": the scheme of the host's SOAP and REST URLs.
func (c Client) Scheme() string {
	if c.TLS != nil {
		return "https"
	}
	return "http"
}

// GRPCDialOptions returns the dial options that send the token with every call and, with
// TLS, replace plain TCP. Append them after a client's own options: the last transport
// credentials win.
func (c Client) GRPCDialOptions() []grpc.DialOption {
	var do []grpc.DialOption
	if c.TLS != nil {
		do = append(do, grpc.WithTransportCredentials(credentials.NewTLS(c.TLS)))
	}
	if c.Token != "" {
		do = append(do, grpc.WithPerRPCCredentials(perRPC{md: map[string]string{"authorization": "Bearer " + c.Token}, tls: c.TLS != nil}))
	}
	return do
}

type bearer struct {
	rt    http.RoundTripper
	value string
}

func (b *bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	// A RoundTripper must not change the caller's request: a shallow copy with its own
	// header map (cheaper than r.Clone, which also copies the URL and trailers).
	r2 := *r
	r2.Header = make(http.Header, len(r.Header)+1)
	for k, v := range r.Header {
		r2.Header[k] = v
	}
	r2.Header["Authorization"] = []string{b.value}
	if c := trade.ClientOf(r.Context()); c != "" {
		r2.Header[ClientHeader] = []string{c}
	}
	return b.rt.RoundTrip(&r2)
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the wrapped transport.
func (b *bearer) CloseIdleConnections() {
	if c, ok := b.rt.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

type perRPC struct {
	md  map[string]string
	tls bool
}

func (p perRPC) GetRequestMetadata(ctx context.Context, _ ...string) (map[string]string, error) {
	if c := trade.ClientOf(ctx); c != "" {
		md := make(map[string]string, len(p.md)+1)
		for k, v := range p.md {
			md[k] = v
		}
		md[clientMD] = c
		return md, nil
	}
	return p.md, nil
}

// RequireTransportSecurity is false: on a loopback or private network the token may travel
// in clear; across machines, use TLS.
func (p perRPC) RequireTransportSecurity() bool { return false }

// TLSFiles names the PEM files of mutual TLS: this process's certificate and key, and the CA
// that signed the other side's. All empty = no TLS.
type TLSFiles struct {
	Cert, Key, CA string
}

// Enabled reports whether any file is set.
func (f TLSFiles) Enabled() bool { return f.Cert != "" || f.Key != "" || f.CA != "" }

func (f TLSFiles) load() (tls.Certificate, *x509.CertPool, error) {
	if f.Cert == "" || f.Key == "" || f.CA == "" {
		return tls.Certificate{}, nil, errors.New("mutual TLS needs all three files: this process's certificate, its key and the CA " +
			"(TLSFiles.Cert, Key and CA)")
	}
	cert, err := tls.LoadX509KeyPair(f.Cert, f.Key)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("TLS certificate: %w", err)
	}
	pem, err := os.ReadFile(f.CA)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("TLS CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return tls.Certificate{}, nil, fmt.Errorf("TLS CA %s: no PEM certificate in it", f.CA)
	}
	return cert, pool, nil
}

// Server is the server side's configuration: present Cert, require a client certificate
// signed by CA. Nil (and no error) when no file is set.
func (f TLSFiles) Server() (*tls.Config, error) {
	if !f.Enabled() {
		return nil, nil
	}
	cert, pool, err := f.load()
	if err != nil {
		return nil, err
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert,
		MinVersion: tls.VersionTLS12}, nil
}

// Client is the client side's configuration: present Cert, trust servers signed by CA.
func (f TLSFiles) Client() (*tls.Config, error) {
	if !f.Enabled() {
		return nil, nil
	}
	cert, pool, err := f.load()
	if err != nil {
		return nil, err
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}
