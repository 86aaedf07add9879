// Package httpc is the driver's lean HTTP/1.1 client. Each virtual user owns one Client: at most
// one connection, a tiny cookie jar, no background goroutines. Buffers come from shared pools only
// while a request is in flight, so a user who is thinking holds little more than its socket —
// which is what lets one process run tens of thousands of users — and the request path allocates
// almost nothing, which is what lets quick mode keep up with wrk.
//
// It speaks what load testing needs and no more: GET/POST/any method, Content-Length and chunked
// responses, keep-alive with one retry on a stale reused connection, Connection: close, TLS,
// cookies. It does not do proxies, HTTP/2, compression or pipelining.
package httpc

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/tradebench/tradebench/internal/clock"
)

// Options are shared by every Client of a run.
type Options struct {
	// Timeout bounds one request from writing it to the last byte of the response (0 = 60s),
	// to within 1/64 more: a kept-alive connection's deadline is moved forward only when it is
	// closer than Timeout, to now + Timeout + Timeout/64, which saves a timer update and two clock
	// reads on nearly every request.
	Timeout time.Duration
	// DialTimeout bounds connecting, including the TLS handshake (0 = Timeout).
	DialTimeout time.Duration
	// TLS is used for https targets (nil = default verification).
	TLS *tls.Config
	// UserAgent is sent with every request ("" = "tradebench").
	UserAgent string
	// Budget bounds the memory of kept bodies across every Client sharing it (nil: one budget
	// of DefaultBodyBudget for the whole process).
	Budget *BodyBudget
	// Redirects is which redirects the caller follows (the zero value: same origin only). The
	// client itself never follows one: it returns the 3xx with its Location.
	Redirects RedirectPolicy
	// MaxHeaderBytes and MaxHeaders bound a response's header section (0: DefaultMaxHeaderBytes,
	// DefaultMaxHeaders); a response beyond either fails as a bad response.
	MaxHeaderBytes, MaxHeaders int
}

// DefaultTimeout bounds a request when Options.Timeout is 0.
const DefaultTimeout = 60 * time.Second

func (o *Options) timeout() time.Duration {
	if o.Timeout <= 0 {
		return DefaultTimeout
	}
	return o.Timeout
}

// Endpoint is where a request goes: scheme and host[:port] of a URL.
type Endpoint struct {
	TLS  bool
	Host string // as sent in the Host header (host or host:port)
	Addr string // host:port to dial
	// ServerName is the TLS server name.
	ServerName string
}

// ParseEndpoint returns the endpoint of an absolute http(s) URL.
func ParseEndpoint(u *url.URL) (Endpoint, error) {
	var e Endpoint
	switch u.Scheme {
	case "http":
	case "https":
		e.TLS = true
	default:
		return e, fmt.Errorf("URL %q: scheme must be http or https", u.String())
	}
	if u.Host == "" {
		return e, fmt.Errorf("URL %q has no host", u.String())
	}
	e.Host = u.Host
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = "80"
		if e.TLS {
			port = "443"
		}
	}
	e.Addr = net.JoinHostPort(host, port)
	e.ServerName = host
	return e, nil
}

// Request is one request to send. Head is everything from the request line's path through the
// request's own headers, pre-rendered by the caller: Method, Target (path and query), and
// Header lines each ending in \r\n. The client adds Host, User-Agent, Cookie and Content-Length.
type Request struct {
	Method string
	Target []byte // origin-form: /path?query
	Header []byte // extra header lines, each "Name: value\r\n"
	Body   []byte
	// KeepBody asks for the response body in Response.Body (otherwise it is read and counted only,
	// as it streams: a body nobody needs costs no memory).
	KeepBody bool
	// MaxBody bounds a kept body (0: DefaultMaxBody): a longer one fails the request as soon as
	// the bound is passed, without reading further.
	MaxBody int64
	// NoCookies sends no Cookie header from the jar (a hop to another origin).
	NoCookies bool
}

// Response is what came back. Body (with Request.KeepBody) is valid until ReleaseBody or the
// next request on the same Client.
type Response struct {
	Status   int
	Bytes    int64  // body bytes received
	Body     []byte // only with Request.KeepBody
	Location string // the Location header, if any
}

// Error kinds, so the driver can group failures.
const (
	KindConnect  = "connect"
	KindTimeout  = "timeout"
	KindReset    = "connection reset"
	KindProtocol = "bad response"
)

// Error is a transport failure of a kind.
type Error struct {
	K   string
	Err error
}

func (e *Error) Error() string { return e.K + ": " + e.Err.Error() }
func (e *Error) Kind() string  { return e.K }
func (e *Error) Unwrap() error { return e.Err }

var (
	readerPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 4096) }}
	bufPool    = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}
	bodyPool   = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}
)

// Client is one virtual user's connection and cookies. Not safe for concurrent use.
type Client struct {
	opt    *Options
	conn   net.Conn
	connTo Endpoint
	used   bool // the connection has carried a request (so the server may have closed it idle)
	body   *[]byte
	// reserved is what body holds of the budget: its capacity beyond pooledBody
	reserved int64
	// watch interrupts the connection's blocked I/O when watchCtx ends; registered once per
	// connection and context rather than per request, which costs measurable CPU at 100k req/s
	watch    func() bool
	watchCtx context.Context
	// ctxDeadline is watchCtx's deadline and deadline the connection's, as clock.Mono readings
	// (0: none); the connection's is refreshed only when it falls closer than the timeout
	ctxDeadline, deadline int64
	Jar                   Jar
}

// NewClient returns a client using the shared options.
func NewClient(opt *Options) *Client { return &Client{opt: opt} }

// CloseConn closes the connection (the next request dials a fresh one).
func (c *Client) CloseConn() {
	if c.watch != nil {
		c.watch()
		c.watch, c.watchCtx = nil, nil
	}
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
	c.used, c.deadline = false, 0
}

// ReleaseBody returns the last kept response body's buffer to the shared pool, so a user
// between requests holds no body. Response.Body must not be used afterwards.
func (c *Client) ReleaseBody() {
	if c.body != nil {
		c.dispose(c.body, c.reserved)
		c.body, c.reserved = nil, 0
	}
}

// Do sends req to ep and reads the whole response. A stale reused keep-alive connection (closed
// by the server while idle: nothing at all comes back) is redialed once and the request resent —
// but only a request that may be sent twice (Replayable). Whether a server that closed without
// answering had read the request cannot be known, and a load balancer's killed tier may have
// acted on it: a resent POST could place a second order. So before a request that must not be
// replayed goes out on a reused connection, the client looks whether the server has already
// closed it (peerClosed: a FIN waiting, the common idle-timeout case) and dials afresh; a close
// that races the write is reported as the error it is.
func (c *Client) Do(ctx context.Context, ep *Endpoint, req *Request) (Response, error) {
	c.ReleaseBody()
	replayable := Replayable(req)
	for attempt := 0; ; attempt++ {
		reused := c.conn != nil && c.used && c.connTo == *ep
		if reused && !replayable && peerClosed(c.conn) {
			c.CloseConn()
			reused = false
		}
		resp, got, err := c.do(ctx, ep, req)
		if err == nil {
			return resp, nil
		}
		c.CloseConn()
		if reused && replayable && !got && attempt == 0 && ctx.Err() == nil && isStale(err) {
			continue
		}
		if ctx.Err() != nil {
			return resp, ctx.Err()
		}
		return resp, err
	}
}

// Replayable reports whether req may be sent a second time when its connection broke before any
// answer: the methods HTTP defines as safe (GET, HEAD, OPTIONS, TRACE), or a request carrying an
// Idempotency-Key header (the server promises to act on it once). net/http's Transport draws the
// same line.
func Replayable(req *Request) bool {
	switch req.Method {
	case "", "GET", "HEAD", "OPTIONS", "TRACE":
		return true
	}
	return hasHeader(req.Header, idempotencyKey)
}

// idempotencyKey names the header that makes any request replayable.
var idempotencyKey = []byte("Idempotency-Key")

// hasHeader reports whether the pre-rendered header lines hold one named name.
func hasHeader(lines, name []byte) bool {
	for len(lines) > 0 {
		var n []byte
		_, n, lines = nextHeaderLine(lines)
		if bytes.EqualFold(n, name) {
			return true
		}
	}
	return false
}

func isStale(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

func (c *Client) dial(ctx context.Context, ep *Endpoint) error {
	c.CloseConn()
	dt := c.opt.DialTimeout
	if dt <= 0 {
		dt = c.opt.timeout()
	}
	dctx, cancel := context.WithTimeout(ctx, dt)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(dctx, "tcp", ep.Addr)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &Error{K: KindConnect, Err: err}
	}
	if ep.TLS {
		cfg := c.opt.TLS
		if cfg == nil {
			cfg = &tls.Config{}
		}
		if cfg.ServerName == "" {
			cfg = cfg.Clone()
			cfg.ServerName = ep.ServerName
		}
		cfg.NextProtos = []string{"http/1.1"}
		tc := tls.Client(conn, cfg)
		if err := tc.HandshakeContext(dctx); err != nil {
			conn.Close()
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return &Error{K: KindConnect, Err: err}
		}
		conn = tc
	} else {
		conn = withRawIO(conn)
	}
	c.conn, c.connTo, c.used = conn, *ep, false
	return nil
}

// do runs one attempt; got reports whether any response byte arrived.
func (c *Client) do(ctx context.Context, ep *Endpoint, req *Request) (resp Response, got bool, err error) {
	if c.conn == nil || c.connTo != *ep {
		if err := c.dial(ctx, ep); err != nil {
			return resp, false, err
		}
	}
	conn := c.conn
	c.used = true
	// the run ending must interrupt a blocked read at once, not after the timeout
	if c.watchCtx != ctx {
		if c.watch != nil {
			c.watch()
		}
		c.watch = context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
		c.watchCtx, c.ctxDeadline, c.deadline = ctx, 0, 0
		if d, ok := ctx.Deadline(); ok {
			c.ctxDeadline = clock.MonoOf(d)
		}
	}
	// before the check: a cancellation after it sets its past deadline after this one
	c.refreshDeadline(conn)
	if ctx.Err() != nil {
		return resp, false, ctx.Err()
	}

	bp := bufPool.Get().(*[]byte)
	b := c.appendHead((*bp)[:0], ep, req)
	if len(req.Body) > 0 && len(b)+len(req.Body) <= 16<<10 {
		b = append(b, req.Body...)
		_, err = conn.Write(b)
	} else {
		if _, err = conn.Write(b); err == nil && len(req.Body) > 0 {
			_, err = conn.Write(req.Body)
		}
	}
	*bp = b
	bufPool.Put(bp)
	if err != nil {
		return resp, false, wrapIO(err)
	}

	br := readerPool.Get().(*bufio.Reader)
	br.Reset(conn)
	resp, got, keep, err := c.readResponse(br, req)
	if err == nil && br.Buffered() > 0 {
		keep = false // bytes nobody asked for: the connection's framing cannot be trusted
	}
	br.Reset(nil)
	readerPool.Put(br)
	if err != nil {
		return resp, got, wrapIO(err)
	}
	if !keep {
		c.CloseConn()
	}
	return resp, true, nil
}

// refreshDeadline gives the request at least the timeout (at most 1/64 more) and never more
// than the context's deadline, updating the connection's deadline only when it falls short.
func (c *Client) refreshDeadline(conn net.Conn) {
	to := int64(c.opt.timeout())
	now := clock.Mono()
	if c.deadline >= now+to && (c.ctxDeadline == 0 || c.deadline <= c.ctxDeadline) {
		return
	}
	d := now + to + to/64
	if c.ctxDeadline != 0 && d > c.ctxDeadline {
		d = c.ctxDeadline
	}
	if d != c.deadline {
		conn.SetDeadline(clock.At(d))
		c.deadline = d
	}
}

func wrapIO(err error) error {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return &Error{K: KindTimeout, Err: err}
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return &Error{K: KindReset, Err: err}
	}
	var he *Error
	if errors.As(err, &he) {
		return err
	}
	return &Error{K: KindProtocol, Err: err}
}

func (c *Client) appendHead(b []byte, ep *Endpoint, req *Request) []byte {
	m := req.Method
	if m == "" {
		m = "GET"
	}
	b = append(b, m...)
	b = append(b, ' ')
	if len(req.Target) == 0 {
		b = append(b, '/')
	} else {
		b = append(b, req.Target...)
	}
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, ep.Host...)
	b = append(b, "\r\nUser-Agent: "...)
	if c.opt.UserAgent != "" {
		b = append(b, c.opt.UserAgent...)
	} else {
		b = append(b, "tradebench"...)
	}
	b = append(b, "\r\n"...)
	b = c.Jar.appendHeader(b, ep, req.Target, !req.NoCookies)
	if len(req.Body) > 0 || m == "POST" || m == "PUT" || m == "PATCH" {
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, int64(len(req.Body)), 10)
		b = append(b, "\r\n"...)
	}
	b = append(b, req.Header...)
	return append(b, "\r\n"...)
}
