package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/remote/clientopt"
)

// DefaultMaxResponseBytes bounds a response body the client will read.
const DefaultMaxResponseBytes = 16 << 20

// Options configures a Client: the remote clients' one options type.
type Options = clientopt.Options

// Client implements trade.Service and trade.OrderProcessor over the REST API. It is safe for
// concurrent use.
type Client struct {
	base string // scheme://host[:port] + "/api/v1"
	opts Options
	hc   *http.Client
}

var (
	_ trade.Service        = (*Client)(nil)
	_ trade.OrderProcessor = (*Client)(nil)
)

// NewClient returns a client of the services host at addr: "host:port" or an http(s) URL
// (the API prefix /api/v1 is added unless the URL already has a path).
func NewClient(addr string, opts Options) (*Client, error) {
	base, err := baseURL(addr, strings.TrimSuffix(Prefix, "/"))
	if err != nil {
		return nil, fmt.Errorf("rest: %w", err)
	}
	opts.SetDefaults()
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("rest: %w", err)
	}
	c := &Client{base: base, opts: opts}
	c.hc = &http.Client{Transport: opts.HTTPTransport(), Timeout: opts.Timeout}
	return c, nil
}

// baseURL normalises "host:port" or a URL to scheme://host + path (defaultPath if none).
func baseURL(addr, defaultPath string) (string, error) {
	if addr == "" {
		return "", errors.New("empty services host address")
	}
	if !strings.Contains(addr, "://") {
		addr = "http://" + addr
	}
	u, err := url.Parse(addr)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("services host address %q: want host:port or http://host:port", addr)
	}
	p := strings.TrimSuffix(u.EscapedPath(), "/")
	if p == "" {
		p = defaultPath
	}
	return u.Scheme + "://" + u.Host + p, nil
}

// BaseURL is the API root the client calls, e.g. http://127.0.0.1:8081/api/v1.
func (c *Client) BaseURL() string { return c.base }

// Options returns the effective settings (defaults filled in), for config pages and results.
func (c *Client) Options() Options { return c.opts }

// Close releases idle connections.
func (c *Client) Close() error {
	c.hc.CloseIdleConnections() // reaches a given Transport too (e.g. the service token's)
	return nil
}

func seg(s string) string { return url.PathEscape(s) }

// do sends one request and decodes a JSON success body into out (nil: expect no body). An
// error response becomes the *trade.Error it carries, or a transport error.
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("rest %s %s: encoding request: %w", method, path, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return fmt.Errorf("rest %s %s: %w", method, path, err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, application/problem+json")
	if k := trade.IdempotencyKeyOf(ctx); k != "" {
		req.Header.Set(trade.IdempotencyHeader, k)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("rest %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	rb, err := io.ReadAll(io.LimitReader(resp.Body, DefaultMaxResponseBytes+1))
	if err != nil {
		return fmt.Errorf("rest %s %s: reading response: %w", method, path, err)
	}
	if len(rb) > DefaultMaxResponseBytes {
		return fmt.Errorf("rest %s %s: response larger than %d bytes", method, path, DefaultMaxResponseBytes)
	}
	if resp.StatusCode >= 300 {
		return problemError(method, path, resp, rb)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(rb, out); err != nil {
		return fmt.Errorf("rest %s %s: decoding response: %w", method, path, err)
	}
	return nil
}

// problemError turns an error response back into the domain error it carries.
func problemError(method, path string, resp *http.Response, body []byte) error {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt == ProblemContentType {
		var p Problem
		if err := json.Unmarshal(body, &p); err == nil {
			if domainCodes[trade.Code(p.Code)] {
				de := &trade.Error{Code: trade.Code(p.Code), Message: p.Detail}
				if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
					de.RetryAfter = time.Duration(s) * time.Second
				}
				return de
			}
			return fmt.Errorf("rest %s %s: HTTP %d %s: %s", method, path, resp.StatusCode, p.Code, p.Detail)
		}
	}
	snippet := string(body)
	if len(snippet) > 200 {
		snippet = snippet[:200] + "…"
	}
	return fmt.Errorf("rest %s %s: HTTP %d: %s", method, path, resp.StatusCode, strings.TrimSpace(snippet))
}

func (c *Client) Login(ctx context.Context, userID, password string) (trade.Account, error) {
	var a trade.Account
	err := c.do(ctx, http.MethodPost, "/login", LoginRequest{UserID: userID, Password: password}, &a)
	return a, err
}

func (c *Client) Logout(ctx context.Context, userID string) error {
	return c.do(ctx, http.MethodPost, "/logout", LogoutRequest{UserID: userID}, nil)
}

func (c *Client) Register(ctx context.Context, r trade.RegisterRequest) (trade.Account, error) {
	var a trade.Account
	err := c.do(ctx, http.MethodPost, "/accounts", r, &a)
	return a, err
}

func (c *Client) GetAccountData(ctx context.Context, userID string) (trade.Account, error) {
	var a trade.Account
	err := c.do(ctx, http.MethodGet, "/accounts/"+seg(userID), nil, &a)
	return a, err
}

func (c *Client) GetAccountProfileData(ctx context.Context, userID string) (trade.AccountProfile, error) {
	var p trade.AccountProfile
	err := c.do(ctx, http.MethodGet, "/accounts/"+seg(userID)+"/profile", nil, &p)
	return p, err
}

func (c *Client) UpdateAccountProfile(ctx context.Context, p trade.AccountProfile) (trade.AccountProfile, error) {
	var out trade.AccountProfile
	err := c.do(ctx, http.MethodPut, "/accounts/"+seg(p.UserID)+"/profile", p, &out)
	return out, err
}

func (c *Client) GetHoldings(ctx context.Context, userID string) ([]trade.Holding, error) {
	var hs []trade.Holding
	err := c.do(ctx, http.MethodGet, "/accounts/"+seg(userID)+"/holdings", nil, &hs)
	return hs, err
}

func (c *Client) GetHolding(ctx context.Context, userID string, holdingID int64) (trade.Holding, error) {
	var h trade.Holding
	err := c.do(ctx, http.MethodGet, "/accounts/"+seg(userID)+"/holdings/"+strconv.FormatInt(holdingID, 10), nil, &h)
	return h, err
}

func (c *Client) GetOrders(ctx context.Context, userID string, limit int) ([]trade.Order, error) {
	var os []trade.Order
	err := c.do(ctx, http.MethodGet, "/accounts/"+seg(userID)+"/orders?limit="+strconv.Itoa(limit), nil, &os)
	return os, err
}

func (c *Client) GetClosedOrders(ctx context.Context, userID string) ([]trade.Order, error) {
	var os []trade.Order
	err := c.do(ctx, http.MethodPost, "/accounts/"+seg(userID)+"/closed-orders", nil, &os)
	return os, err
}

func (c *Client) GetQuote(ctx context.Context, symbol string) (trade.Quote, error) {
	var q trade.Quote
	err := c.do(ctx, http.MethodGet, "/quotes/"+seg(symbol), nil, &q)
	return q, err
}

func (c *Client) GetQuotes(ctx context.Context, symbols []string) ([]trade.Quote, error) {
	v := url.Values{"symbol": symbols}
	var qs []trade.Quote
	err := c.do(ctx, http.MethodGet, "/quotes?"+v.Encode(), nil, &qs)
	return qs, err
}

func (c *Client) GetMarketSummary(ctx context.Context) (trade.MarketSummary, error) {
	var m trade.MarketSummary
	err := c.do(ctx, http.MethodGet, "/market-summary", nil, &m)
	return m, err
}

func (c *Client) Buy(ctx context.Context, userID, symbol string, quantity int64) (trade.Order, error) {
	var o trade.Order
	err := c.do(ctx, http.MethodPost, "/orders/buy", BuyRequest{UserID: userID, Symbol: symbol, Quantity: quantity}, &o)
	return o, err
}

func (c *Client) Sell(ctx context.Context, userID string, holdingID int64, quantity int64) (trade.Order, error) {
	var o trade.Order
	err := c.do(ctx, http.MethodPost, "/orders/sell", SellRequest{UserID: userID, HoldingID: holdingID, Quantity: quantity}, &o)
	return o, err
}

func (c *Client) CompleteOrder(ctx context.Context, orderID int64) (trade.Order, error) {
	var o trade.Order
	err := c.do(ctx, http.MethodPost, "/orders/"+strconv.FormatInt(orderID, 10)+"/complete", nil, &o)
	return o, err
}
