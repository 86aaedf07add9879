package wstest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/tradebench/tradebench/internal/httpc"
)

// Client calls the WSTest operations over one encoding. A Client is used by one goroutine at a
// time (Last reports that goroutine's last call); make one per goroutine — they are cheap and
// share connections through the transport they are built on.
type Client interface {
	EchoVoid(ctx context.Context) error
	EchoStruct(ctx context.Context, in []Struct) ([]Struct, error)
	EchoList(ctx context.Context, in *Node) (*Node, error)
	EchoSynthetic(ctx context.Context, in *Synthetic) (*Synthetic, error)
	GetOrder(ctx context.Context, orderID, customerID, messageSize int32) (*Order, error)
	// Last describes the last call on the wire: the HTTP status (0 if nothing came back) and
	// the response bytes.
	Last() Exchange
	// Close releases the client's connections (if it owns any).
	Close() error
}

// Exchange is one call as the wire saw it.
type Exchange struct {
	Status int
	Bytes  int64
}

// RemoteError is a well-formed error answer from the server: a SOAP Fault, a JSON error, a gRPC
// status. Code is the fault code ("soap:Client", "400", "InvalidArgument").
type RemoteError struct {
	Code    string
	Message string
}

func (e *RemoteError) Error() string { return "server answered " + e.Code + ": " + e.Message }

// Kind groups remote errors by code in a run's error table.
func (e *RemoteError) Kind() string { return "fault " + e.Code }

// PostRequest is one HTTP POST made by the SOAP and JSON clients.
type PostRequest struct {
	Path        string // appended to the poster's base path, e.g. "/wstest/soap"
	ContentType string
	SOAPAction  string // sent as SOAPAction when not empty
	Body        []byte
}

// Poster sends POSTs for one client. The returned body is valid until the next Post. Posters
// are not safe for concurrent use.
type Poster interface {
	Post(ctx context.Context, req *PostRequest) (status int, body []byte, err error)
	Close() error
}

// StdPoster posts with net/http (connection pooling and keep-alive from the http.Client's
// transport). Base is the server's base URL ("http://127.0.0.1:8080").
type StdPoster struct {
	HC      *http.Client
	Base    string
	MaxBody int64 // response bound (0 = DefaultMaxBodyBytes)
	buf     bytes.Buffer
}

// Post implements Poster.
func (p *StdPoster) Post(ctx context.Context, r *PostRequest) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.Base+r.Path, bytes.NewReader(r.Body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", r.ContentType)
	if r.SOAPAction != "" {
		req.Header.Set("SOAPAction", `"`+r.SOAPAction+`"`)
	}
	hc := p.HC
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	max := p.MaxBody
	if max <= 0 {
		max = DefaultMaxBodyBytes
	}
	p.buf.Reset()
	n, err := p.buf.ReadFrom(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return resp.StatusCode, nil, fmt.Errorf("reading response: %w", err)
	}
	if n > max {
		return resp.StatusCode, nil, fmt.Errorf("response body larger than %d bytes", max)
	}
	return resp.StatusCode, p.buf.Bytes(), nil
}

// Close implements Poster (the shared http.Client's pool is not this poster's to close).
func (p *StdPoster) Close() error { return nil }

// LeanPoster posts with the driver's lean HTTP/1.1 client: one connection per poster, almost no
// allocation, so a load generator on the same machine takes little CPU from the server.
// CloseEach closes the connection after every request (the 50-client methodology).
type LeanPoster struct {
	c         *httpc.Client
	ep        httpc.Endpoint
	base      string
	closeEach bool
	head      []byte
	target    []byte
}

// NewLeanPoster makes a poster for base ("http://host:port[/prefix]").
func NewLeanPoster(base string, opt *httpc.Options, closeEach bool) (*LeanPoster, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("target %q: %w", base, err)
	}
	ep, err := httpc.ParseEndpoint(u)
	if err != nil {
		return nil, err
	}
	if opt == nil {
		opt = &httpc.Options{}
	}
	return &LeanPoster{c: httpc.NewClient(opt), ep: ep, base: strings.TrimSuffix(u.Path, "/"), closeEach: closeEach}, nil
}

// Post implements Poster.
func (p *LeanPoster) Post(ctx context.Context, r *PostRequest) (int, []byte, error) {
	h := append(p.head[:0], "Content-Type: "...)
	h = append(h, r.ContentType...)
	h = append(h, "\r\n"...)
	if r.SOAPAction != "" {
		h = append(h, "SOAPAction: \""...)
		h = append(h, r.SOAPAction...)
		h = append(h, "\"\r\n"...)
	}
	if p.closeEach {
		h = append(h, "Connection: close\r\n"...)
	}
	p.head = h
	p.target = append(append(p.target[:0], p.base...), r.Path...)
	resp, err := p.c.Do(ctx, &p.ep, &httpc.Request{Method: "POST", Target: p.target, Header: h, Body: r.Body, KeepBody: true})
	if p.closeEach {
		p.c.CloseConn()
	}
	if err != nil {
		return resp.Status, nil, err
	}
	return resp.Status, resp.Body, nil
}

// Close implements Poster.
func (p *LeanPoster) Close() error {
	p.c.CloseConn()
	p.c.ReleaseBody()
	return nil
}
