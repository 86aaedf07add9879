// Package rest serves trade.Service as REST/JSON resources under /api/v1/ and provides a client
// that implements trade.Service over them. Money is a decimal string ("1234.50"), times are
// RFC 3339, errors are RFC 9457 application/problem+json with the domain code in "code". The
// OpenAPI 3 document is served at /api/v1/openapi.json.
package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/tradebench/tradebench/trade"
)

// Prefix is where the API lives.
const Prefix = "/api/v1/"

// DefaultMaxBodyBytes bounds a request body; the largest legitimate one (a registration) is
// well under a kilobyte.
const DefaultMaxBodyBytes = 64 << 10

// HandlerOptions configures NewHandler.
type HandlerOptions struct {
	// Processor serves POST /api/v1/orders/{id}/complete; nil uses the service itself when it
	// implements trade.OrderProcessor, else that route answers 501.
	Processor trade.OrderProcessor
	// MaxBodyBytes bounds a request body (0 = DefaultMaxBodyBytes).
	MaxBodyBytes int64
	// Logger receives system faults and recovered panics (nil = slog.Default()).
	Logger *slog.Logger
}

type handler struct {
	svc  trade.Service
	proc trade.OrderProcessor
	max  int64
	log  *slog.Logger
}

// NewHandler returns the REST API handler. It expects the full request path (/api/v1/...), so
// mount it at Prefix without stripping. It does its own routing: a user id may be empty or hold
// any character and still round-trip as one escaped path segment.
func NewHandler(svc trade.Service, opts HandlerOptions) http.Handler {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Processor == nil {
		opts.Processor, _ = svc.(trade.OrderProcessor)
	}
	return &handler{svc: svc, proc: opts.Processor, max: opts.MaxBodyBytes, log: opts.Logger}
}

// request is one routed call: the unescaped path segments after /api/v1/.
type request struct {
	w   http.ResponseWriter
	r   *http.Request
	seg []string
}

// errBadRequest marks a transport-level mistake in a request (status and code given).
type errBadRequest struct {
	status int
	code   string
	msg    string
}

func (e *errBadRequest) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &errBadRequest{http.StatusBadRequest, CodeMalformed, fmt.Sprintf(format, args...)}
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			h.log.Error("rest: panic in handler", "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
			writeProblem(w, http.StatusInternalServerError, CodeInternal, "internal error")
		}
	}()
	ep := r.URL.EscapedPath()
	if !strings.HasPrefix(ep, Prefix) {
		writeProblem(w, http.StatusNotFound, CodeUnknownResource, "no such resource; the API is under "+Prefix)
		return
	}
	raw := strings.Split(ep[len(Prefix):], "/")
	if len(raw) > 6 {
		writeProblem(w, http.StatusNotFound, CodeUnknownResource, "no such resource")
		return
	}
	seg := make([]string, len(raw))
	for i, s := range raw {
		u, err := url.PathUnescape(s)
		if err != nil {
			writeProblem(w, http.StatusBadRequest, CodeMalformed, "bad escape in path")
			return
		}
		seg[i] = u
	}
	rq := &request{w: w, r: r, seg: seg}
	route, methods := h.route(seg, r.Method)
	if route == nil {
		if methods != "" {
			w.Header().Set("Allow", methods)
			writeProblem(w, http.StatusMethodNotAllowed, CodeBadMethod, fmt.Sprintf("%s is not allowed here; use %s", r.Method, methods))
			return
		}
		writeProblem(w, http.StatusNotFound, CodeUnknownResource, "no such resource: "+truncate(r.URL.Path, 100))
		return
	}
	v, status, err := route(rq)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if status == http.StatusNoContent {
		w.WriteHeader(status)
		return
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		h.fail(w, r, fmt.Errorf("encoding response: %w", err))
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/json")
	hd.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

func (h *handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	var br *errBadRequest
	switch de := trade.AsError(err); {
	case de != nil:
		if de.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.FormatInt(int64(de.RetryAfter/time.Second), 10))
		}
		writeProblem(w, HTTPStatus(de.Code), string(de.Code), de.Message)
	case errors.As(err, &br):
		writeProblem(w, br.status, br.code, br.msg)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		writeProblem(w, http.StatusServiceUnavailable, CodeUnavailable, "the call was cancelled or timed out: "+err.Error())
	default:
		h.log.Warn("rest: trade service fault", "path", r.URL.Path, "err", err)
		writeProblem(w, http.StatusInternalServerError, CodeInternal, "trade service: "+err.Error())
	}
}

type routeFunc func(*request) (any, int, error)

// route matches the path segments and method. When the path matches but the method does not,
// it returns the allowed methods.
func (h *handler) route(seg []string, method string) (routeFunc, string) {
	var get, post, put routeFunc
	switch {
	case len(seg) == 1 && seg[0] == "login":
		post = h.login
	case len(seg) == 1 && seg[0] == "logout":
		post = h.logout
	case len(seg) == 1 && seg[0] == "accounts":
		post = h.register
	case len(seg) == 2 && seg[0] == "accounts":
		get = h.getAccount
	case len(seg) == 3 && seg[0] == "accounts" && seg[2] == "profile":
		get, put = h.getProfile, h.updateProfile
	case len(seg) == 3 && seg[0] == "accounts" && seg[2] == "holdings":
		get = h.getHoldings
	case len(seg) == 4 && seg[0] == "accounts" && seg[2] == "holdings":
		get = h.getHolding
	case len(seg) == 3 && seg[0] == "accounts" && seg[2] == "orders":
		get = h.getOrders
	case len(seg) == 3 && seg[0] == "accounts" && seg[2] == "closed-orders":
		post = h.closedOrders
	case len(seg) == 1 && seg[0] == "quotes":
		get = h.getQuotes
	case len(seg) == 2 && seg[0] == "quotes":
		get = h.getQuote
	case len(seg) == 1 && seg[0] == "market-summary":
		get = h.marketSummary
	case len(seg) == 2 && seg[0] == "orders" && seg[1] == "buy":
		post = h.buy
	case len(seg) == 2 && seg[0] == "orders" && seg[1] == "sell":
		post = h.sell
	case len(seg) == 3 && seg[0] == "orders" && seg[2] == "complete":
		post = h.complete
	case len(seg) == 1 && seg[0] == "openapi.json":
		get = serveOpenAPI
	}
	switch method {
	case http.MethodGet, http.MethodHead:
		if get != nil {
			return get, ""
		}
	case http.MethodPost:
		if post != nil {
			return post, ""
		}
	case http.MethodPut:
		if put != nil {
			return put, ""
		}
	}
	var allow []string
	if get != nil {
		allow = append(allow, "GET", "HEAD")
	}
	if post != nil {
		allow = append(allow, "POST")
	}
	if put != nil {
		allow = append(allow, "PUT")
	}
	return nil, strings.Join(allow, ", ")
}

// decode reads a JSON body strictly: JSON media type, bounded size, one object, no unknown
// fields, no trailing data.
func (h *handler) decode(rq *request, v any) error {
	if ct := rq.r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return &errBadRequest{http.StatusUnsupportedMediaType, CodeMediaType, "the body must be application/json"}
		}
	}
	body := http.MaxBytesReader(rq.w, rq.r.Body, h.max)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return &errBadRequest{http.StatusRequestEntityTooLarge, CodeTooLarge, fmt.Sprintf("the body is larger than %d bytes", h.max)}
		}
		if errors.Is(err, io.EOF) {
			return badRequest("the body must be a JSON object")
		}
		return badRequest("invalid JSON body: %s", truncate(err.Error(), 200))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return &errBadRequest{http.StatusRequestEntityTooLarge, CodeTooLarge, fmt.Sprintf("the body is larger than %d bytes", h.max)}
		}
		return badRequest("unexpected data after the JSON object")
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func parseID(name, s string) (int64, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, badRequest("%s must be a whole number, not %q", name, truncate(s, 40))
	}
	return v, nil
}

// Wire shapes of request bodies (responses are the trade model types, whose JSON form is the
// documented one: money as decimal strings).

// LoginRequest is POST /api/v1/login's body.
type LoginRequest struct {
	UserID   string `json:"userID"`
	Password string `json:"password"`
}

// LogoutRequest is POST /api/v1/logout's body.
type LogoutRequest struct {
	UserID string `json:"userID"`
}

// BuyRequest is POST /api/v1/orders/buy's body.
type BuyRequest struct {
	UserID   string `json:"userID"`
	Symbol   string `json:"symbol"`
	Quantity int64  `json:"quantity"`
}

// SellRequest is POST /api/v1/orders/sell's body; quantity 0 sells the whole holding.
type SellRequest struct {
	UserID    string `json:"userID"`
	HoldingID int64  `json:"holdingID"`
	Quantity  int64  `json:"quantity"`
}

func (h *handler) login(rq *request) (any, int, error) {
	var in LoginRequest
	if err := h.decode(rq, &in); err != nil {
		return nil, 0, err
	}
	a, err := h.svc.Login(rq.r.Context(), in.UserID, in.Password)
	return a, http.StatusOK, err
}

func (h *handler) logout(rq *request) (any, int, error) {
	var in LogoutRequest
	if err := h.decode(rq, &in); err != nil {
		return nil, 0, err
	}
	return nil, http.StatusNoContent, h.svc.Logout(rq.r.Context(), in.UserID)
}

func (h *handler) register(rq *request) (any, int, error) {
	var in trade.RegisterRequest
	if err := h.decode(rq, &in); err != nil {
		return nil, 0, err
	}
	a, err := h.svc.Register(rq.r.Context(), in)
	return a, http.StatusCreated, err
}

func (h *handler) getAccount(rq *request) (any, int, error) {
	a, err := h.svc.GetAccountData(rq.r.Context(), rq.seg[1])
	return a, http.StatusOK, err
}

func (h *handler) getProfile(rq *request) (any, int, error) {
	p, err := h.svc.GetAccountProfileData(rq.r.Context(), rq.seg[1])
	p.Password = "" // never returned, whatever the service does
	return p, http.StatusOK, err
}

func (h *handler) updateProfile(rq *request) (any, int, error) {
	var in trade.AccountProfile
	if err := h.decode(rq, &in); err != nil {
		return nil, 0, err
	}
	if in.UserID != "" && in.UserID != rq.seg[1] {
		return nil, 0, badRequest("the body's userID %q is not the path's %q", truncate(in.UserID, 64), truncate(rq.seg[1], 64))
	}
	in.UserID = rq.seg[1]
	p, err := h.svc.UpdateAccountProfile(rq.r.Context(), in)
	p.Password = ""
	return p, http.StatusOK, err
}

func (h *handler) getHoldings(rq *request) (any, int, error) {
	hs, err := h.svc.GetHoldings(rq.r.Context(), rq.seg[1])
	if hs == nil {
		hs = []trade.Holding{}
	}
	return hs, http.StatusOK, err
}

func (h *handler) getHolding(rq *request) (any, int, error) {
	id, err := parseID("holdingID", rq.seg[3])
	if err != nil {
		return nil, 0, err
	}
	hd, err := h.svc.GetHolding(rq.r.Context(), rq.seg[1], id)
	return hd, http.StatusOK, err
}

func (h *handler) getOrders(rq *request) (any, int, error) {
	limit := 0
	q := rq.r.URL.Query()
	if s := q.Get("limit"); s != "" {
		v, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return nil, 0, badRequest("limit must be a whole number, not %q", truncate(s, 40))
		}
		limit = int(v)
	}
	os, err := h.svc.GetOrders(rq.r.Context(), rq.seg[1], limit)
	if os == nil {
		os = []trade.Order{}
	}
	return os, http.StatusOK, err
}

func (h *handler) closedOrders(rq *request) (any, int, error) {
	os, err := h.svc.GetClosedOrders(rq.r.Context(), rq.seg[1])
	if os == nil {
		os = []trade.Order{}
	}
	return os, http.StatusOK, err
}

func (h *handler) getQuote(rq *request) (any, int, error) {
	q, err := h.svc.GetQuote(rq.r.Context(), rq.seg[1])
	return q, http.StatusOK, err
}

// getQuotes is GET /api/v1/quotes?symbol=a&symbol=b: repeated parameters, so a symbol may hold
// any character. More than trade.MaxSymbols is the service's call; the URL length is bounded
// by the server's header limit.
func (h *handler) getQuotes(rq *request) (any, int, error) {
	q, err := url.ParseQuery(rq.r.URL.RawQuery)
	if err != nil {
		return nil, 0, badRequest("bad query string: %s", truncate(err.Error(), 100))
	}
	qs, err := h.svc.GetQuotes(rq.r.Context(), q["symbol"])
	if qs == nil {
		qs = []trade.Quote{}
	}
	return qs, http.StatusOK, err
}

func (h *handler) marketSummary(rq *request) (any, int, error) {
	m, err := h.svc.GetMarketSummary(rq.r.Context())
	if m.TopGainers == nil {
		m.TopGainers = []trade.Quote{}
	}
	if m.TopLosers == nil {
		m.TopLosers = []trade.Quote{}
	}
	return m, http.StatusOK, err
}

func (h *handler) buy(rq *request) (any, int, error) {
	var in BuyRequest
	if err := h.decode(rq, &in); err != nil {
		return nil, 0, err
	}
	o, err := h.svc.Buy(rq.r.Context(), in.UserID, in.Symbol, in.Quantity)
	return o, http.StatusOK, err
}

func (h *handler) sell(rq *request) (any, int, error) {
	var in SellRequest
	if err := h.decode(rq, &in); err != nil {
		return nil, 0, err
	}
	o, err := h.svc.Sell(rq.r.Context(), in.UserID, in.HoldingID, in.Quantity)
	return o, http.StatusOK, err
}

func (h *handler) complete(rq *request) (any, int, error) {
	id, err := parseID("orderID", rq.seg[1])
	if err != nil {
		return nil, 0, err
	}
	if h.proc == nil {
		return nil, 0, &errBadRequest{http.StatusNotImplemented, CodeUnknownResource, "this services host has no order processor"}
	}
	o, err := h.proc.CompleteOrder(rq.r.Context(), id)
	return o, http.StatusOK, err
}
