package soap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tradebench/tradebench/trade"
)

// Client defaults.
const (
	DefaultTimeout = 10 * time.Second
	// DefaultMaxConnsPerHost is generous on purpose: a client throttled to a couple of
	// connections per host (the old .NET default of 2) serialises a whole web tier's calls.
	DefaultMaxConnsPerHost = 256
	// DefaultMaxResponseBytes bounds a response the client will read.
	DefaultMaxResponseBytes = 16 << 20
)

// Options configures a Client.
type Options struct {
	// Timeout bounds every call (0 = DefaultTimeout); a shorter context deadline wins.
	Timeout time.Duration
	// MaxConnsPerHost bounds open connections to the host, and as many are kept idle for
	// reuse (0 = DefaultMaxConnsPerHost).
	MaxConnsPerHost int
	// DialTimeout bounds establishing a TCP connection (0 = min(Timeout, 5s)).
	DialTimeout time.Duration
	// Transport replaces the HTTP transport (tests); the pool settings are then its own.
	Transport http.RoundTripper
}

// Client implements trade.Service and trade.OrderProcessor over the SOAP endpoint. It is safe
// for concurrent use.
type Client struct {
	url  string
	opts Options
	hc   *http.Client
	tr   *http.Transport
}

var (
	_ trade.Service        = (*Client)(nil)
	_ trade.OrderProcessor = (*Client)(nil)
)

// NewClient returns a client of the SOAP endpoint at addr: "host:port" or an http(s) URL (the
// endpoint path /soap/trade is added unless the URL has a path).
func NewClient(addr string, opts Options) (*Client, error) {
	if addr == "" {
		return nil, errors.New("soap: empty services host address")
	}
	if !strings.Contains(addr, "://") {
		addr = "http://" + addr
	}
	u, err := url.Parse(addr)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("soap: services host address %q: want host:port or http://host:port[/path]", addr)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = Path
	}
	u.RawQuery, u.Fragment = "", ""
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxConnsPerHost <= 0 {
		opts.MaxConnsPerHost = DefaultMaxConnsPerHost
	}
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = min(opts.Timeout, 5*time.Second)
	}
	c := &Client{url: u.String(), opts: opts}
	rt := opts.Transport
	if rt == nil {
		d := &net.Dialer{Timeout: opts.DialTimeout, KeepAlive: 30 * time.Second}
		c.tr = &http.Transport{
			DialContext:           d.DialContext,
			MaxConnsPerHost:       opts.MaxConnsPerHost,
			MaxIdleConnsPerHost:   opts.MaxConnsPerHost,
			MaxIdleConns:          opts.MaxConnsPerHost * 4,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   opts.DialTimeout,
			ExpectContinueTimeout: time.Second,
		}
		rt = c.tr
	}
	c.hc = &http.Client{Transport: rt, Timeout: opts.Timeout}
	return c, nil
}

// URL is the endpoint the client calls.
func (c *Client) URL() string { return c.url }

// Options returns the effective settings (defaults filled in), for config pages and results.
func (c *Client) Options() Options { return c.opts }

// Close releases idle connections.
func (c *Client) Close() error {
	c.hc.CloseIdleConnections() // reaches a given Transport too (e.g. the service token's)
	return nil
}

// FaultError is a SOAP fault that carries no domain error (a malformed request, a server
// fault). Domain faults come back as *trade.Error instead.
type FaultError struct {
	Code   string // Client, Server, VersionMismatch, MustUnderstand
	String string
	Status int
}

func (e *FaultError) Error() string {
	return fmt.Sprintf("soap fault %s (HTTP %d): %s", e.Code, e.Status, e.String)
}

// call posts the operation with the parameters body writes, and hands each child of the
// response element to read (i indexes the op's out fields).
func (c *Client) call(ctx context.Context, name string, body func([]byte) []byte, read func(cur *cursor, i int) error) error {
	op := opByName[name]
	b := make([]byte, 0, 512)
	b = append(b, envStart...)
	b = append(b, '<')
	b = append(b, name...)
	b = append(b, ` xmlns="`+Namespace+`">`...)
	if body != nil {
		b = body(b)
	}
	b = appendEnd(b, name)
	b = append(b, envEnd...)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("soap %s: %w", name, err)
	}
	req.Header.Set("Content-Type", "text/xml; charset=utf-8")
	req.Header.Set("SOAPAction", `"`+SOAPAction(name)+`"`)
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("soap %s: %w", name, err)
	}
	defer resp.Body.Close()
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	rb, err := readBody(io.LimitReader(resp.Body, DefaultMaxResponseBytes+1), (*bp)[:0])
	*bp = rb[:0]
	if err != nil {
		return fmt.Errorf("soap %s: reading response: %w", name, err)
	}
	if len(rb) > DefaultMaxResponseBytes {
		return fmt.Errorf("soap %s: response larger than %d bytes", name, DefaultMaxResponseBytes)
	}
	if err := parseResponse(rb, op, resp.StatusCode, read); err != nil {
		var de *trade.Error
		if errors.As(err, &de) {
			return de
		}
		return fmt.Errorf("soap %s: %w", name, err)
	}
	return nil
}

// parseResponse reads a response envelope: the operation's response element or a fault.
func parseResponse(doc []byte, op *opSpec, status int, read func(cur *cursor, i int) error) error {
	c := newCursor(doc)
	env, ok, err := c.child()
	if err != nil || !ok || env.Name.Space != EnvelopeNS || env.Name.Local != "Envelope" {
		snippet := strings.TrimSpace(shorten(string(doc), 200))
		return fmt.Errorf("HTTP %d: not a SOAP envelope: %s", status, snippet)
	}
	sawBody := false
	for {
		se, ok, err := c.child()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch {
		case se.Name.Space == EnvelopeNS && se.Name.Local == "Header" && !sawBody:
			if err := c.skip(); err != nil {
				return err
			}
		case se.Name.Space == EnvelopeNS && se.Name.Local == "Body" && !sawBody:
			sawBody = true
			el, ok, err := c.child()
			if err != nil {
				return err
			}
			if !ok {
				return errors.New("empty response Body")
			}
			if el.Name.Space == EnvelopeNS && el.Name.Local == "Fault" {
				return readFault(c, status)
			}
			if status != http.StatusOK {
				return fmt.Errorf("HTTP %d with a non-fault body", status)
			}
			if el.Name.Space != Namespace || el.Name.Local != op.name+"Response" {
				return fmt.Errorf("unexpected response element {%s}%s", shorten(el.Name.Space, 80), shorten(el.Name.Local, 64))
			}
			if err := c.record(op.out, func(i int) error { return read(c, i) }); err != nil {
				return err
			}
			if _, more, err := c.child(); err != nil {
				return err
			} else if more {
				return errors.New("more than one element in the response Body")
			}
		default:
			return fmt.Errorf("unexpected element <%s> in the Envelope", shorten(se.Name.Local, 64))
		}
	}
	if !sawBody {
		return errors.New("the response has no Body")
	}
	return c.end()
}

// faultFields are SOAP 1.1 Fault's children (unqualified).
var faultFields = []field{
	{name: "faultcode"}, {name: "faultstring"}, {name: "faultactor", optional: true}, {name: "detail", optional: true},
}

func readFault(c *cursor, status int) error {
	fe := &FaultError{Status: status}
	var de *trade.Error
	err := c.record(faultFields, func(i int) error {
		switch i {
		case 0:
			s, err := c.text()
			_, local, _ := strings.Cut(s, ":") // a QName: prefix:Client
			if local == "" {
				local = s
			}
			fe.Code = strings.TrimSpace(local)
			return err
		case 1:
			s, err := c.text()
			fe.String = s
			return err
		case 2:
			_, err := c.text()
			return err
		}
		// detail: our TradeFault, or anything else (skipped).
		for {
			se, ok, err := c.child()
			if err != nil || !ok {
				return err
			}
			if se.Name.Space != Namespace || se.Name.Local != "TradeFault" {
				if err := c.skip(); err != nil {
					return err
				}
				continue
			}
			de = &trade.Error{}
			err = c.record(faultDetailFields, func(i int) error {
				s, err := c.text()
				if i == 0 {
					de.Code = trade.Code(s)
				} else {
					de.Message = s
				}
				return err
			})
			if err != nil {
				return err
			}
		}
	})
	if err != nil {
		return fmt.Errorf("reading a fault (HTTP %d): %w", status, err)
	}
	if de != nil {
		return de
	}
	return fe
}

func str(name, v string) func([]byte) []byte {
	return func(b []byte) []byte { return appendString(b, name, v) }
}

func (c *Client) Login(ctx context.Context, userID, password string) (a trade.Account, err error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	err = c.call(ctx, "login", func(b []byte) []byte {
		b = appendString(b, "userID", userID)
		return appendString(b, "password", password)
	}, func(cur *cursor, _ int) (err error) { a, err = readAccount(cur); return })
	return a, err
}

func (c *Client) Logout(ctx context.Context, userID string) error {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	return c.call(ctx, "logout", str("userID", userID), nil)
}

func (c *Client) Register(ctx context.Context, r trade.RegisterRequest) (a trade.Account, err error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	err = c.call(ctx, "register", func(b []byte) []byte {
		b = appendString(b, "userID", r.UserID)
		b = appendString(b, "password", r.Password)
		b = appendString(b, "fullName", r.FullName)
		b = appendString(b, "address", r.Address)
		b = appendString(b, "email", r.Email)
		b = appendString(b, "creditCard", r.CreditCard)
		return appendMoney(b, "openBalance", r.OpenBalance)
	}, func(cur *cursor, _ int) (err error) { a, err = readAccount(cur); return })
	return a, err
}

func (c *Client) GetAccountData(ctx context.Context, userID string) (a trade.Account, err error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	err = c.call(ctx, "getAccountData", str("userID", userID),
		func(cur *cursor, _ int) (err error) { a, err = readAccount(cur); return })
	return a, err
}

func (c *Client) GetAccountProfileData(ctx context.Context, userID string) (p trade.AccountProfile, err error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	err = c.call(ctx, "getAccountProfileData", str("userID", userID),
		func(cur *cursor, _ int) (err error) { p, err = readProfile(cur); return })
	return p, err
}

func (c *Client) UpdateAccountProfile(ctx context.Context, in trade.AccountProfile) (p trade.AccountProfile, err error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	err = c.call(ctx, "updateAccountProfile", func(b []byte) []byte { return appendProfile(b, "profile", in) },
		func(cur *cursor, _ int) (err error) { p, err = readProfile(cur); return })
	return p, err
}

func (c *Client) GetHoldings(ctx context.Context, userID string) ([]trade.Holding, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	hs := []trade.Holding{}
	err := c.call(ctx, "getHoldings", str("userID", userID), func(cur *cursor, _ int) error {
		h, err := readHolding(cur)
		hs = append(hs, h)
		return err
	})
	if err != nil {
		return nil, err
	}
	return hs, nil
}

func (c *Client) GetHolding(ctx context.Context, userID string, holdingID int64) (h trade.Holding, err error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	err = c.call(ctx, "getHolding", func(b []byte) []byte {
		b = appendString(b, "userID", userID)
		return appendInt(b, "holdingID", holdingID)
	}, func(cur *cursor, _ int) (err error) { h, err = readHolding(cur); return })
	return h, err
}

func (c *Client) orders(ctx context.Context, name string, body func([]byte) []byte) ([]trade.Order, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	os := []trade.Order{}
	err := c.call(ctx, name, body, func(cur *cursor, _ int) error {
		o, err := readOrder(cur)
		os = append(os, o)
		return err
	})
	if err != nil {
		return nil, err
	}
	return os, nil
}

func (c *Client) GetOrders(ctx context.Context, userID string, limit int) ([]trade.Order, error) {
	return c.orders(ctx, "getOrders", func(b []byte) []byte {
		b = appendString(b, "userID", userID)
		return appendInt(b, "limit", int64(limit))
	})
}

func (c *Client) GetClosedOrders(ctx context.Context, userID string) ([]trade.Order, error) {
	return c.orders(ctx, "getClosedOrders", str("userID", userID))
}

func (c *Client) GetQuote(ctx context.Context, symbol string) (q trade.Quote, err error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	err = c.call(ctx, "getQuote", str("symbol", symbol),
		func(cur *cursor, _ int) (err error) { q, err = readQuote(cur); return })
	return q, err
}

func (c *Client) GetQuotes(ctx context.Context, symbols []string) ([]trade.Quote, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	qs := []trade.Quote{}
	err := c.call(ctx, "getQuotes", func(b []byte) []byte {
		for _, s := range symbols {
			b = appendString(b, "symbol", s)
		}
		return b
	}, func(cur *cursor, _ int) error {
		q, err := readQuote(cur)
		qs = append(qs, q)
		return err
	})
	if err != nil {
		return nil, err
	}
	return qs, nil
}

func (c *Client) GetMarketSummary(ctx context.Context) (m trade.MarketSummary, err error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	err = c.call(ctx, "getMarketSummary", nil,
		func(cur *cursor, _ int) (err error) { m, err = readSummary(cur); return })
	return m, err
}

func (c *Client) order(ctx context.Context, name string, body func([]byte) []byte) (o trade.Order, err error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	err = c.call(ctx, name, body, func(cur *cursor, _ int) (err error) { o, err = readOrder(cur); return })
	return o, err
}

func (c *Client) Buy(ctx context.Context, userID, symbol string, quantity int64) (trade.Order, error) {
	return c.order(ctx, "buy", func(b []byte) []byte {
		b = appendString(b, "userID", userID)
		b = appendString(b, "symbol", symbol)
		return appendInt(b, "quantity", quantity)
	})
}

func (c *Client) Sell(ctx context.Context, userID string, holdingID int64, quantity int64) (trade.Order, error) {
	return c.order(ctx, "sell", func(b []byte) []byte {
		b = appendString(b, "userID", userID)
		b = appendInt(b, "holdingID", holdingID)
		return appendInt(b, "quantity", quantity)
	})
}

func (c *Client) CompleteOrder(ctx context.Context, orderID int64) (trade.Order, error) {
	return c.order(ctx, "completeOrder", func(b []byte) []byte { return appendInt(b, "orderID", orderID) })
}
