package soap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/tradebench/tradebench/internal/soapxml"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/remote/clientopt"
)

// DefaultMaxResponseBytes bounds a response the client will read.
const DefaultMaxResponseBytes = 16 << 20

// Options configures a Client: the remote clients' one options type.
type Options = clientopt.Options

// Client implements trade.Service and trade.OrderProcessor over the SOAP endpoint. It is safe
// for concurrent use.
type Client struct {
	url  string
	opts Options
	hc   *http.Client
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
	opts.SetDefaults()
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("soap: %w", err)
	}
	c := &Client{url: u.String(), opts: opts}
	c.hc = &http.Client{Transport: opts.HTTPTransport(), Timeout: opts.Timeout}
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
	b := soapxml.AppendBodyStart(make([]byte, 0, 512), Namespace, name, "")
	if body != nil {
		b = body(b)
	}
	b = soapxml.AppendBodyEnd(b, name, "")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("soap %s: %w", name, err)
	}
	req.Header.Set("Content-Type", soapxml.ContentType)
	req.Header.Set("SOAPAction", `"`+SOAPAction(name)+`"`)
	if k := trade.IdempotencyKeyOf(ctx); k != "" {
		req.Header.Set(trade.IdempotencyHeader, k)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("soap %s: %w", name, err)
	}
	defer resp.Body.Close()
	bp := soapxml.GetBuf()
	defer soapxml.PutBuf(bp)
	rb, err := soapxml.ReadBody(*bp, resp.Body, resp.ContentLength, DefaultMaxResponseBytes)
	*bp = rb
	if errors.Is(err, soapxml.ErrTooLarge) {
		return fmt.Errorf("soap %s: response larger than %d bytes", name, DefaultMaxResponseBytes)
	}
	if err != nil {
		return fmt.Errorf("soap %s: reading response: %w", name, err)
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

// parseResponse reads a response envelope: the operation's response element, whose children
// go to read (i indexes the op's out fields), or a fault.
func parseResponse(doc []byte, op *opSpec, status int, read func(cur *cursor, i int) error) error {
	c := getCursor(doc)
	defer putCursor(c)
	inBody := false
	var fault error
	err := c.Envelope(expectOp, func(t *soapxml.Token) error {
		inBody = true
		if t.IsFault() {
			fault = readFault(c, status)
			return nil
		}
		if status != http.StatusOK {
			return fmt.Errorf("HTTP %d with a non-fault body", status)
		}
		if string(t.NS) != Namespace || string(t.Local) != op.name+"Response" {
			return fmt.Errorf("unexpected response element {%s}%s", soapxml.Clip(t.NS), soapxml.Clip(t.Local))
		}
		return c.Record(op.name+"Response", op.out, func(i int, _ *soapxml.Token) error { return read(c, i) })
	})
	switch {
	case err != nil && !inBody:
		// not an envelope at all, e.g. a proxy's error page: show its beginning
		snippet := strings.TrimSpace(soapxml.Shorten(string(doc[:min(len(doc), 256)]), 200))
		return fmt.Errorf("HTTP %d: not a SOAP envelope (%v): %s", status, err, snippet)
	case fault != nil:
		return fault
	}
	return err
}

// readFault reads a soap:Fault: a domain error if its detail holds a TradeFault, else a
// *FaultError.
func readFault(c *cursor, status int) error {
	var de *trade.Error
	f, err := c.ReadFault(func(t *soapxml.Token) error {
		if string(t.NS) != Namespace || string(t.Local) != "TradeFault" {
			return c.Skip()
		}
		de = &trade.Error{}
		return c.Record("TradeFault", faultDetailFields, func(i int, t *soapxml.Token) error {
			s, err := c.String(t)
			if i == 0 {
				de.Code = trade.Code(s)
			} else {
				de.Message = s
			}
			return err
		})
	})
	if err != nil {
		return fmt.Errorf("reading a fault (HTTP %d): %w", status, err)
	}
	if de != nil {
		return de
	}
	return &FaultError{Code: strings.TrimSpace(f.Code), String: f.String, Status: status}
}

func str(name, v string) func([]byte) []byte {
	return func(b []byte) []byte { return soapxml.AppendString(b, name, v) }
}

func (c *Client) Login(ctx context.Context, userID, password string) (a trade.Account, err error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	err = c.call(ctx, "login", func(b []byte) []byte {
		b = soapxml.AppendString(b, "userID", userID)
		return soapxml.AppendString(b, "password", password)
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
		b = soapxml.AppendStrings(b, opByName["register"].in, r.UserID, r.Password, r.FullName, r.Address, r.Email, r.CreditCard)
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
		b = soapxml.AppendString(b, "userID", userID)
		return soapxml.AppendInt(b, "holdingID", holdingID)
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
		b = soapxml.AppendString(b, "userID", userID)
		return soapxml.AppendInt(b, "limit", int64(limit))
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
			b = soapxml.AppendString(b, "symbol", s)
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
		b = soapxml.AppendString(b, "userID", userID)
		b = soapxml.AppendString(b, "symbol", symbol)
		return soapxml.AppendInt(b, "quantity", quantity)
	})
}

func (c *Client) Sell(ctx context.Context, userID string, holdingID int64, quantity int64) (trade.Order, error) {
	return c.order(ctx, "sell", func(b []byte) []byte {
		b = soapxml.AppendString(b, "userID", userID)
		b = soapxml.AppendInt(b, "holdingID", holdingID)
		return soapxml.AppendInt(b, "quantity", quantity)
	})
}

func (c *Client) CompleteOrder(ctx context.Context, orderID int64) (trade.Order, error) {
	return c.order(ctx, "completeOrder", func(b []byte) []byte { return soapxml.AppendInt(b, "orderID", orderID) })
}
