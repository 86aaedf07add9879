package web

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tradebench/tradebench/internal/logsafe"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/stream"
)

// Setting is one line of the config page.
type Setting struct {
	Name  string
	Value string
}

// Options configures the web application. The zero value works.
type Options struct {
	// SessionSecret signs session cookies and the JSF pages' view states (HMAC-SHA256).
	// Empty: a random secret per process, so sessions do not survive a restart and are not
	// shared between processes. Give every process of a scaled-out web tier the same secret
	// (at least 32 bytes).
	SessionSecret []byte
	// SessionTTL is how long a session lives without activity (0 = DefaultSessionTTL; at
	// least MinSessionTTL).
	SessionTTL time.Duration
	// SecureCookies sets the Secure attribute (serve behind TLS).
	SecureCookies bool
	// OrdersLimit caps the orders on the account page (0 = trade.DefaultOrdersLimit; at most
	// trade.MaxOrdersLimit).
	OrdersLimit int
	// Config returns the running modes and settings for the config page and
	// /trade/config.json. It is called per request, so values like uptime may change; nil
	// shows the web tier's own settings only.
	Config func() *Configuration
	// Access, if set, lets the config page switch the web tier's access mode (in-process, SOAP,
	// REST, gRPC) while it runs.
	Access AccessSwitch
	// MaxBodyBytes limits a request body (default 64 KiB); larger requests get 413.
	MaxBodyBytes int64
	// Logger receives system faults and panics (default slog.Default()).
	Logger *slog.Logger
	// Clock is the time sessions are checked against (default time.Now); tests move it.
	Clock func() time.Time
	// SessionCheckInterval is how long a page that only reads may rely on this tier's last
	// check that the session was not ended (logout, password change) on any tier
	// (0 = DefaultSessionCheckInterval; negative = check on every request). Requests that
	// change something always check.
	SessionCheckInterval time.Duration

	// Quotes is the hub of live quote changes that /trade/stream/quotes serves (package
	// stream); nil: a hub nothing publishes to, so streams open but stay quiet.
	Quotes *stream.Hub[*stream.Event]
	// SummaryEvery is how often the market summary stream looks for a new summary while
	// someone listens (0 = stream.DefaultSummaryEvery).
	SummaryEvery time.Duration
	// StreamLimit caps the streams this web tier holds open at once; beyond it a stream
	// request gets 503 (0 = DefaultStreamLimit).
	StreamLimit int
	// StreamPerClient caps the streams one client address holds open, under StreamLimit;
	// beyond it a stream request gets 429 (0 = DefaultStreamPerClient).
	StreamPerClient int
	// AnonStreamMaxAge and StreamMaxAge bound a stream's life without and with a session
	// (0 = DefaultAnonStreamMaxAge, and for StreamMaxAge the anonymous bound).
	AnonStreamMaxAge, StreamMaxAge time.Duration
}

// AccessSwitch changes how the web tier reaches the business services (package access).
type AccessSwitch interface {
	Mode() string
	Modes() []string
	Set(mode string) error
}

// DefaultSessionCheckInterval bounds how long, after a logout on another web tier, a copy of
// the session cookie can still read pages on this one; on the tier that logged out, and for
// anything that changes state, the session ends at once. One second keeps the check to about
// one call per session in the built-in scenarios.
const DefaultSessionCheckInterval = time.Second

// DefaultSessionTTL is the session lifetime when Options.SessionTTL is zero (as DayTrader's
// servlet session default).
const DefaultSessionTTL = 30 * time.Minute

// MinSessionTTL is the shortest session lifetime Validate accepts: a shorter one logs a reader
// out between two pages.
const MinSessionTTL = time.Minute

// MaxStreams bounds StreamLimit and StreamPerClient.
const MaxStreams = 1_000_000

// SetDefaults fills the zero settings that have a default: the one place they are applied
// (New calls it, and fills the hooks: Clock, Logger, Quotes).
func (o *Options) SetDefaults() {
	if o.SessionTTL == 0 {
		o.SessionTTL = DefaultSessionTTL
	}
	if o.OrdersLimit == 0 {
		o.OrdersLimit = trade.DefaultOrdersLimit
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 64 << 10
	}
	if o.SessionCheckInterval == 0 {
		o.SessionCheckInterval = DefaultSessionCheckInterval
	}
	if o.StreamLimit == 0 {
		o.StreamLimit = DefaultStreamLimit
	}
	if o.StreamPerClient == 0 {
		o.StreamPerClient = DefaultStreamPerClient
	}
	if o.AnonStreamMaxAge <= 0 {
		o.AnonStreamMaxAge = DefaultAnonStreamMaxAge
	}
	if o.StreamMaxAge <= 0 {
		o.StreamMaxAge = o.AnonStreamMaxAge // registration is public: a session is no credential
	}
}

// Validate reports a setting the web tier cannot run with: a *setting.Error names the
// Options field. It checks o as SetDefaults leaves it, so a zero field (its default) is never
// refused.
func (o Options) Validate() error {
	o.SetDefaults()
	switch {
	case o.SessionTTL < MinSessionTTL:
		return setting.Errorf("SessionTTL", "must be at least %v, got %v", MinSessionTTL, o.SessionTTL)
	case o.OrdersLimit < 1 || o.OrdersLimit > trade.MaxOrdersLimit:
		// the service returns at most MaxOrdersLimit orders, so a larger cap would be a page
		// that says it shows them all when it does not
		return setting.Errorf("OrdersLimit", "must be between 1 and %d, got %d", trade.MaxOrdersLimit, o.OrdersLimit)
	case len(o.SessionSecret) > 0 && len(o.SessionSecret) < 16:
		return setting.Errorf("SessionSecret", "is %d bytes; use at least 16 (32 recommended)", len(o.SessionSecret))
	case o.StreamLimit < 1 || o.StreamLimit > MaxStreams:
		return setting.Errorf("StreamLimit", "must be between 1 and %d, got %d", MaxStreams, o.StreamLimit)
	case o.StreamPerClient < 1 || o.StreamPerClient > MaxStreams:
		return setting.Errorf("StreamPerClient", "must be between 1 and %d, got %d", MaxStreams, o.StreamPerClient)
	}
	return nil
}

// app is the web application.
type app struct {
	svc       trade.Service
	sess      sessions
	opts      Options
	log       *slog.Logger
	pages     *pageSet
	csrf      *http.CrossOriginProtection
	routes    map[string]route
	dtAction  map[string]dtRoute
	jsf       map[string]jsfPage // the JSF contract's pages by path (jsf.go)
	streams   atomic.Int64       // open streams (stream.go)
	streamMu  sync.Mutex
	perClient map[string]int // open streams by client address
	summary   *stream.SummaryFeed
	faults    *logsafe.Limiter // error lines per client
}

// New returns the web application's handler for both URL contracts.
func New(svc trade.Service, opts Options) (http.Handler, error) {
	if svc == nil {
		return nil, errors.New("web: nil trade.Service")
	}
	opts.SetDefaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Quotes == nil {
		opts.Quotes = stream.NewHub[*stream.Event](0)
	}
	secret := opts.SessionSecret
	if len(secret) == 0 {
		secret = make([]byte, 32)
		rand.Read(secret)
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	a := &app{
		svc: svc,
		sess: sessions{secret: secret, ttl: opts.SessionTTL, secure: opts.SecureCookies, now: opts.Clock,
			checks: newCheckCache(opts.SessionCheckInterval)},
		opts:  opts,
		pages: pages,
		csrf:  http.NewCrossOriginProtection(),
		// values cut and escaped, whatever handler the caller gave
		log:    slog.New(logsafe.Handler(opts.Logger.Handler())),
		faults: logsafe.DefaultLimiter(), perClient: map[string]int{},
	}
	a.summary = stream.NewSummaryFeed(svc.GetMarketSummary, opts.SummaryEvery, opts.Logger)
	a.routes = a.tradeRoutes()
	a.dtAction = a.dayTraderActions()
	a.jsf = a.jsfPages()
	return a, nil
}

// ServeHTTP is the middleware chain: panic recovery, body limit, security headers, routing.
func (a *app) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rw := &statusWriter{ResponseWriter: w}
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			a.log.Error("web: panic serving request", "method", r.Method, "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
			if !rw.wrote {
				a.systemFault(rw, r, nil)
			}
		}
	}()
	if r.Body != nil {
		r.Body = http.MaxBytesReader(rw, r.Body, a.opts.MaxBodyBytes)
	}
	h := rw.Header()
	h["X-Content-Type-Options"] = hdrNosniff
	h["Referrer-Policy"] = hdrSameOrigin
	h["X-Frame-Options"] = hdrDeny
	h["Content-Security-Policy"] = hdrCSP
	a.route(rw, r)
}

// The constant header values every page sends, as the slices an http.Header holds. Header.Set
// makes a new one-element slice per call, seven per page; these are shared instead, which is
// safe because nothing writes into a header value's slice in place (Header.Add appends to a
// full slice, so it copies). Canonical keys: they are assigned, not Set.
var (
	hdrNosniff    = []string{"nosniff"}
	hdrSameOrigin = []string{"same-origin"}
	hdrDeny       = []string{"DENY"}
	hdrCSP        = []string{"default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; form-action " +
		"'self'; frame-ancestors 'none'; base-uri 'none'"}
	hdrHTML    = []string{"text/html; charset=utf-8"}
	hdrNoStore = []string{"no-store"}
)

// statusWriter remembers whether a response has started, so a late panic does not write twice.
type statusWriter struct {
	http.ResponseWriter
	wrote bool
}

func (s *statusWriter) WriteHeader(code int) {
	s.wrote = true
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	s.wrote = true
	return s.ResponseWriter.Write(b)
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// route dispatches by path. A small table rather than ServeMux patterns, so a wrong method is
// a clean 405 and an unknown path our own 404 page.
func (a *app) route(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case p == "/" || p == "/trade" || p == "/trade/":
		http.Redirect(w, r, "/trade/home", http.StatusSeeOther)
		return
	case p == "/daytrader" || p == "/daytrader/" || p == "/daytrader/app" || p == "/daytrader/welcome.jsp":
		a.serveDayTrader(w, r)
		return
	case p == "/daytrader/register.jsp":
		a.serve(w, r, true, a.showRegister)
		return
	case p == "/daytrader/rest/quotes" || strings.HasPrefix(p, "/daytrader/rest/quotes/"):
		a.restQuotes(w, r)
		return
	case strings.HasSuffix(p, ".faces"):
		if pg, ok := a.jsf[p]; ok {
			a.serveJSF(w, r, pg)
			return
		}
	}
	rt, ok := a.routes[p]
	if !ok {
		a.serve(w, r, false, func(q *req) error {
			return trade.Errorf(trade.CodeNotFound, "There is no page at %s.", p)
		})
		return
	}
	var h handler
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		h = rt.get
	case http.MethodPost:
		h = rt.post
	}
	if h == nil {
		allow := []string{}
		if rt.get != nil {
			allow = append(allow, "GET, HEAD")
		}
		if rt.post != nil {
			allow = append(allow, "POST")
		}
		w.Header().Set("Allow", strings.Join(allow, ", "))
		a.serve(w, r, false, func(q *req) error {
			return &httpError{status: http.StatusMethodNotAllowed, msg: "This page does not accept " + r.Method + " requests."}
		})
		return
	}
	a.serve(w, r, false, h)
}

// handler is one page's logic, shared by both contracts; it renders or returns an error.
type handler func(q *req) error

// route is the handlers of one /trade/ path by method.
type route struct {
	get, post handler
	// public pages need no session; the rest send an anonymous visitor to the login page.
	public bool
	// noCSRFToken exempts a POST from the per-session form token: login and register have no
	// session yet (the cross-origin check still applies).
	noCSRFToken bool
}

// req is one request as the handlers see it.
type req struct {
	w       http.ResponseWriter
	r       *http.Request
	dt      bool      // the DayTrader contract: its page brand, URLs, and no form token
	jsf     *jsfState // the JSF contract (*.faces): its pages and view state; nil otherwise
	sess    session
	authed  bool
	sessErr error // why a cookie was refused (tampered, expired)
}

// keyed is the request's context with the idempotency key it carries: the hidden form field
// its page rendered, else the Idempotency-Key header a client sent; none (DayTrader's URLs)
// leaves the call unkeyed. A malformed key is refused (CodeInvalid).
func (q *req) keyed() (context.Context, error) {
	k := q.r.Form.Get(trade.IdempotencyField)
	if k == "" {
		k = q.r.Header.Get(trade.IdempotencyHeader)
	}
	if err := trade.ValidateIdempotencyKey(k); err != nil {
		return nil, err
	}
	return trade.WithIdempotencyKey(q.r.Context(), k), nil
}

// httpError is a web-level failure with a status and a message for the user.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

// errLoginRequired sends an anonymous visitor to the login page.
var errLoginRequired = errors.New("login required")

func (a *app) tradeRoutes() map[string]route {
	m := map[string]route{
		"/trade/login":         {get: a.showLogin, post: a.doLogin, public: true, noCSRFToken: true},
		"/trade/logout":        {post: a.doLogout, public: true},
		"/trade/register":      {get: a.showRegister, post: a.doRegister, public: true, noCSRFToken: true},
		"/trade/home":          {get: a.home},
		"/trade/account":       {get: a.account, post: a.updateProfile},
		"/trade/portfolio":     {get: a.portfolio},
		"/trade/quotes":        {get: a.quotes},
		"/trade/buy":           {post: a.buy},
		"/trade/sell":          {post: a.sell},
		"/trade/marketsummary": {get: a.marketSummary},
		"/trade/config":        {get: a.config, post: a.setAccess, public: true, noCSRFToken: true},
		"/trade/config.json":   {get: a.configJSON, public: true},
		// Live streams need no session (see streamQuotes); live.js updates the pages from them.
		"/trade/stream/quotes":    {get: a.streamQuotes, public: true},
		"/trade/stream/summary":   {get: a.streamSummary, public: true},
		"/trade/static/live.js":   {get: a.static, public: true},
		"/trade/static/style.css": {get: a.static, public: true},
		"/trade/static/jsf.css":   {get: a.static, public: true},
	}
	for p, rt := range m {
		if rt.get != nil {
			rt.get = a.guard(rt.get, rt.public, false)
		}
		if rt.post != nil {
			rt.post = a.guard(rt.post, rt.public, !rt.noCSRFToken)
		}
		m[p] = rt
	}
	return m
}

// guard wraps a /trade/ handler with the login requirement and, for forms, the token check.
func (a *app) guard(h handler, public, token bool) handler {
	return func(q *req) error {
		if !public && !q.authed {
			return errLoginRequired
		}
		if token && q.authed && !a.sess.checkCSRF(q.sess, q.r.PostFormValue("csrf")) {
			return &httpError{status: http.StatusForbidden,
				msg: "This form has expired or did not come from this site. Go back, reload the page and try again."}
		}
		if token && !q.authed {
			return errLoginRequired
		}
		return h(q)
	}
}

// serve runs a handler for one request: it reads the session, applies the cross-origin check to
// unsafe methods, and turns the handler's error into the right status and page.
func (a *app) serve(w http.ResponseWriter, r *http.Request, dt bool, h handler) {
	q := &req{w: w, r: r, dt: dt}
	var err error
	if r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch || r.Method == http.MethodDelete {
		if cerr := a.csrf.Check(r); cerr != nil {
			err = &httpError{status: http.StatusForbidden, msg: "Cross-site form submissions are refused. Use the forms on this site."}
		} else if perr := r.ParseForm(); perr != nil {
			err = formError(perr)
		}
	} else if perr := r.ParseForm(); perr != nil {
		err = formError(perr)
	}
	// A request that may change something checks its session against the database every
	// time; a page that only reads may use this tier's check of the last second.
	fresh := (r.Method != http.MethodGet && r.Method != http.MethodHead) || (dt && a.dtAction[r.Form.Get("action")].mutating)
	ss, serr := a.sess.read(r)
	if serr == nil {
		serr = a.sess.current(r.Context(), a.svc, ss, fresh)
	}
	switch {
	case serr == nil:
		q.sess, q.authed = ss, true
		a.sess.refresh(w, ss)
	case serr == errNoSession:
	case serr == errBadSession || serr == errExpiredSession || serr == errEndedSession:
		q.sessErr = serr
		a.sess.clear(w)
	default: // the services cannot say whether the session still holds
		a.fail(q, serr)
		return
	}
	if err == nil {
		err = h(q)
	}
	if err != nil {
		a.fail(q, err)
	}
}

func formError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return &httpError{status: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf("The request is larger than %d bytes.", mbe.Limit)}
	}
	return &httpError{status: http.StatusBadRequest, msg: "The request's form data could not be read."}
}

// statusOf maps a domain error code to an HTTP status.
func statusOf(c trade.Code) int {
	switch c {
	case trade.CodeInvalid:
		return http.StatusBadRequest
	case trade.CodeUnauthorized:
		return http.StatusUnauthorized
	case trade.CodeForbidden:
		return http.StatusForbidden
	case trade.CodeNotFound:
		return http.StatusNotFound
	case trade.CodeConflict:
		return http.StatusConflict
	case trade.CodeInsufficientFunds:
		return http.StatusUnprocessableEntity
	case trade.CodeTooManyRequests:
		return http.StatusTooManyRequests
	}
	return http.StatusBadRequest
}

// fail renders err: the login page for a missing or failed login, an error page with the
// domain message for a user's mistake, and a generic page (details only in the log) for a fault.
func (a *app) fail(q *req, err error) {
	if errors.Is(err, errLoginRequired) {
		msg := "Please log in to continue."
		if q.sessErr == errExpiredSession {
			msg = "Your session has expired. Please log in again."
		} else if q.sessErr == errEndedSession {
			msg = "Your session has ended: you logged out or your password was changed. Please log in again."
		} else if q.sessErr != nil {
			msg = "Your session is not valid. Please log in again."
		}
		status := http.StatusUnauthorized
		if q.dt {
			status = http.StatusOK // DayTrader answers the login page with 200; its scripts expect that
		}
		a.renderLogin(q, status, "", msg)
		return
	}
	var he *httpError
	if errors.As(err, &he) {
		a.renderError(q, he.status, he.msg)
		return
	}
	if errors.Is(err, trade.ErrUnavailable) {
		// a remote services host is down or slow: say so, with details only in the log
		a.logFault(q.r, slog.LevelWarn, "web: business services unavailable", "err", err)
		q.w.Header().Set("Retry-After", "1")
		a.renderError(q, http.StatusServiceUnavailable, "The business services are not reachable right now. Please try again in a moment.")
		return
	}
	if te := trade.AsError(err); te != nil {
		if te.Code == trade.CodeUnauthorized {
			a.renderLogin(q, http.StatusUnauthorized, "", te.Message)
			return
		}
		if te.Code == trade.CodeTooManyRequests {
			setRetryAfter(q.w, te)
		}
		a.renderError(q, statusOf(te.Code), te.Message)
		return
	}
	a.systemFault(q.w, q.r, err)
}

// setRetryAfter tells a throttled client when to come back: the service's figure, or the whole
// window when a transport did not carry it (SOAP).
func setRetryAfter(w http.ResponseWriter, te *trade.Error) {
	s := int64(te.RetryAfter / time.Second)
	if s <= 0 {
		s = int64(trade.LoginWindow / time.Second)
	}
	w.Header().Set("Retry-After", strconv.FormatInt(s, 10))
}

// logFault logs a failed request, at most logsafe.DefaultLimiter's rate per client: a client
// repeating a failing request cannot fill the disk. The line says how many were dropped.
func (a *app) logFault(r *http.Request, level slog.Level, msg string, args ...any) {
	ok, dropped := a.faults.Allow(r.RemoteAddr)
	if !ok {
		return
	}
	args = append(args, "method", r.Method, "path", r.URL.Path, "client", r.RemoteAddr)
	if dropped > 0 {
		args = append(args, "dropped", dropped)
	}
	a.log.Log(r.Context(), level, msg, args...)
}

// systemFault logs err and answers 500 with a generic message: internals stay in the log.
func (a *app) systemFault(w http.ResponseWriter, r *http.Request, err error) {
	if err != nil {
		if r.Context().Err() != nil {
			// the client went away; nothing to tell it
			a.log.Debug("web: request canceled", "method", r.Method, "path", r.URL.Path, "err", err)
			return
		}
		a.logFault(r, slog.LevelError, "web: system fault", "err", err)
	}
	q := &req{w: w, r: r, dt: strings.HasPrefix(r.URL.Path, "/daytrader/")}
	a.renderError(q, http.StatusInternalServerError, "Something went wrong on the server. The error has been logged; please try again.")
}
