// Package verify is `tradebench verify`: a conformance suite that checks, over the wire, that a
// target implements the StockTrader / DayTrader application before anyone measures it. A target
// that skips the commission, never completes its orders, serves pages from a stale cache or lets
// one user sell another's holdings posts better numbers than an honest one; verify finds it.
//
// It speaks only the DayTrader contract a browser with JavaScript off speaks (the servlet's
// /daytrader/app?action=…, the JSF pages, the REST quotes), reads the pages as a browser lays
// them out (read.go: by their words, labels and headings, in any implementation's layout),
// follows their forms as a browser does (forms.go), and never touches a database: what it
// checks is what any user of the target sees.
// It creates its own accounts (user ids vf-RUN-N) and trades only with them, so it is safe on a
// shared target; its trades move the prices of the quotes it trades, as every trade does.
//
// The checks are grouped in four levels, each a rung of "DayTrader-compatible":
//
//  1. pages: every action and page the built-in scenarios use, with the markers they check;
//  2. business rules: balances, commission, holdings, order completion, totals, the market
//     summary, profiles and sessions, as the pages show them;
//  3. isolation and input: one user cannot see, sell or change another's; bad input gets a
//     clear 4xx (never a 500) and changes nothing;
//  4. audit: a short load on accounts verify registered, every one reconciled from its pages.
//
// Each check arranges what it needs with accounts of its own, so one miss fails one check. A
// check whose rule cannot apply (the target offers no JSF, no REST quotes; a fact it needs is
// missing) is skipped naming the fact, never failed; one whose page does not show what it looks
// for in any layout verify reads is unreadable — no verdict on the target, but no certification
// either. The job sits above the application and the report model (bench/): it knows the
// contract; the report renders what it found.
package verify

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/tradebench/tradebench/internal/dsn"
	"github.com/tradebench/tradebench/internal/httpc"
	"github.com/tradebench/tradebench/internal/money"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/report"
)

// Config is one verification.
type Config struct {
	// Target is the web tier's base URL (http://host:port, or with a path prefix the
	// /daytrader/… paths are below).
	Target string
	// Timeout bounds each request (default 30s).
	Timeout time.Duration
	// OrderBound is how long an order may take to reach a completed state (default 10s). A
	// target whose /trade/config.json says its orders are synchronous must complete them at once.
	OrderBound time.Duration
	// SummaryBound is how long the market summary is read again while it lists no quote
	// (default 10s): an implementation may compute it on a timer.
	SummaryBound time.Duration
	// Symbols are the quotes verify trades (default s:1,s:2,s:3: every DayTrader data set has them).
	Symbols []string
	// AuditUsers and AuditTrades size the audit's load: users trading at once, trades each.
	AuditUsers, AuditTrades int
	// Deadline bounds the whole verification (default 5m): a target answering each request
	// just inside Timeout cannot hold it for hours. The checks it leaves are skipped, and the
	// verification says the deadline ended it.
	Deadline time.Duration
	// Insecure accepts any TLS certificate of the target.
	Insecure bool
	// Notice, if set, gets what verify will create (Notice), once the target has answered and
	// before anything is changed.
	Notice io.Writer
	// Progress, if set, gets a line as each level's checks start.
	Progress io.Writer
}

// Defaults.
const (
	DefaultTimeout     = 30 * time.Second
	DefaultOrderBound  = 10 * time.Second
	DefaultAuditUsers  = 4
	DefaultAuditTrades = 6
	DefaultDeadline    = 5 * time.Minute
	DefaultSummary     = 10 * time.Second
)

// DefaultSymbols are the quotes verify trades when none are given.
var DefaultSymbols = []string{"s:1", "s:2", "s:3"}

// SetDefaults fills the zero fields that have a default.
func (c *Config) SetDefaults() {
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.OrderBound == 0 {
		c.OrderBound = DefaultOrderBound
	}
	if len(c.Symbols) == 0 {
		c.Symbols = DefaultSymbols
	}
	if c.SummaryBound == 0 {
		c.SummaryBound = DefaultSummary
	}
	if c.Deadline == 0 {
		c.Deadline = DefaultDeadline
	}
	if c.AuditUsers == 0 {
		c.AuditUsers = DefaultAuditUsers
	}
	if c.AuditTrades == 0 {
		c.AuditTrades = DefaultAuditTrades
	}
}

// Validate checks the configuration as SetDefaults leaves it.
func (c *Config) Validate() error {
	u, err := url.Parse(c.Target)
	switch {
	case c.Target == "":
		return setting.Errorf("Target", "is required: the web tier's URL, e.g. http://127.0.0.1:8080")
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return setting.Errorf("Target", "%q is not an http:// or https:// URL", c.Target)
	case c.Timeout < 0:
		return setting.Errorf("Timeout", "must not be negative")
	case c.SummaryBound < 0:
		return setting.Errorf("SummaryBound", "must not be negative")
	case c.Deadline < 0:
		return setting.Errorf("Deadline", "must not be negative")
	case c.OrderBound < 0:
		return setting.Errorf("OrderBound", "must not be negative")
	case c.AuditUsers < 1 || c.AuditUsers > 100:
		return setting.Errorf("AuditUsers", "must be 1 to 100, not %d", c.AuditUsers)
	case c.AuditTrades < 2 || c.AuditTrades > 50:
		return setting.Errorf("AuditTrades", "must be 2 to 50 (the account page lists at most 100 orders), not %d", c.AuditTrades)
	}
	for _, s := range c.Symbols {
		if s == "" || len(s) > 32 || strings.ContainsAny(s, ", <>&\"") {
			return setting.Errorf("Symbols", "%q is not a symbol", s)
		}
	}
	if len(c.Symbols) < 2 {
		return setting.Errorf("Symbols", "needs at least two symbols")
	}
	return nil
}

// Levels are the levels' names, level 1 first.
var Levels = []string{"pages", "business rules", "isolation and input", "audit"}

// Notice is what verify says before it changes anything: the accounts it creates.
func Notice(run string) string { return AccountsNotice("vf", run) }

// AccountsNotice is the notice of a suite whose accounts are PREFIX-RUN-N (the services suite's
// are vsf-…).
func AccountsNotice(prefix, run string) string {
	return fmt.Sprintf("verify registers its own accounts (%[1]s-%[2]s-1, %[1]s-%[2]s-2, …) and trades only with them; "+
		"it changes no other account (its trades move the prices of the quotes it trades, as any trade does)", prefix, run)
}

// NewRun is a fresh run id: the accounts of one verification are vf-RUN-N (vsf-RUN-N for
// the services suite's).
func NewRun() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Run verifies cfg.Target; run names its accounts (NewRun). The error is for a verification
// that could not be made at all (a bad configuration, a target that does not answer: a
// *report.Unreachable); a target that fails checks is a Verification that is not Conformant
// (see its Err). The whole verification is bounded by cfg.Deadline: the checks it leaves are
// skipped, and the error says the deadline ended it.
func Run(ctx context.Context, cfg Config, run string) (*report.Verification, error) {
	cfg.SetDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(cfg.Deadline)
	ctx, cancel := context.WithDeadlineCause(ctx, deadline, errDeadline)
	defer cancel()
	base, _ := url.Parse(strings.TrimSuffix(cfg.Target, "/"))
	v := &verifier{cfg: cfg, base: base, run: run, ctx: ctx, hopt: httpOptions(cfg),
		accounts: map[string]*account{}, res: report.NewVerification(dsn.Redact(cfg.Target)), deadline: deadline}
	if err := v.reachable(); err != nil {
		return nil, err
	}
	if cfg.Notice != nil {
		fmt.Fprintf(cfg.Notice, "verify %s: %s\n", dsn.Redact(cfg.Target), Notice(run))
	}
	v.discover()
	v.pages()
	v.business()
	v.isolation()
	v.audit()
	err := v.res.Finish(ctx, Levels)
	if v.expired() {
		v.res.Conformant = false
		err = &DeadlineError{Deadline: cfg.Deadline}
	}
	return v.res, err
}

// expired reports whether the verification's deadline has passed (the clients' own deadlines
// may fire a moment before the context's).
func (v *verifier) expired() bool {
	return errors.Is(context.Cause(v.ctx), errDeadline) || !time.Now().Before(v.deadline)
}

// errDeadline is the cause of a verification ended by Config.Deadline.
var errDeadline = errors.New("deadline")

// DeadlineError is a verification that Config.Deadline ended before every check was made: what
// was checked is reported, but it is no verdict.
type DeadlineError struct{ Deadline time.Duration }

func (e *DeadlineError) Error() string {
	return fmt.Sprintf("the verification's deadline (Deadline, %v) ended it before every check was made; the checks not made are skipped", e.Deadline)
}

// reachable asks the target for its login page once: a target that does not answer at all (no
// listener, a wrong host) cannot be verified, which is not a verdict on an implementation.
func (v *verifier) reachable() error {
	u := v.newUser()
	defer u.close()
	p, err := u.get(v.ctx, "/daytrader/app")
	if err != nil {
		return &report.Unreachable{Target: dsn.Redact(v.cfg.Target), Err: fmt.Errorf("%s: %w", p.req, err)}
	}
	return nil
}

// verifier is one verification's state.
type verifier struct {
	cfg      Config
	base     *url.URL
	run      string
	ctx      context.Context
	hopt     *httpc.Options
	res      *report.Verification
	n        int                 // accounts registered
	level    int                 // the level of the check running
	deadline time.Time           // Config.Deadline from the start
	accounts map[string]*account // the accounts groups of checks share, by purpose

	syncOrders bool // the target's /trade/config.json says its orders are synchronous
	ordersMode string
}

// discover reads what the target says about itself, if it is a tradebench (config.json):
// its order mode, which decides whether orders must complete at once.
func (v *verifier) discover() {
	u := v.newUser()
	defer u.close()
	p, err := u.get(v.ctx, "/trade/config.json")
	if err != nil || p.status != 200 {
		return
	}
	var c struct {
		Orders struct {
			Mode string `json:"mode"`
		} `json:"orders"`
	}
	if json.Unmarshal([]byte(p.body), &c) == nil && c.Orders.Mode != "" {
		v.ordersMode = c.Orders.Mode
		v.syncOrders = c.Orders.Mode == "sync"
	}
}

// ck is one check while it runs.
type ck struct {
	report.Check
	v *verifier
}

// fail records a failure with its evidence; the first reason is kept, every evidence. A
// failure outranks an unreadable page and a skip: the target did something wrong.
func (c *ck) fail(ev *report.Evidence, format string, args ...any) {
	if c.Outcome != report.CheckFail {
		c.Outcome, c.Reason = report.CheckFail, clean(fmt.Sprintf(format, args...), 500)
	}
	if ev != nil {
		c.Evidence = append(c.Evidence, *ev)
	}
}

// unreadable records a page verify could not read: what it looked for and an excerpt of what
// the page shows. It outranks a skip, not a failure.
func (c *ck) unreadable(p *page, err error, format string, args ...any) {
	what := fmt.Sprintf(format, args...)
	if c.Outcome == "" || c.Outcome == report.CheckSkip {
		c.Outcome, c.Reason = report.CheckUnreadable, clean(fmt.Sprintf("%s: %v", what, err), 500)
	}
	if p != nil {
		ev := p.evidence(what, err.Error())
		c.Evidence = append(c.Evidence, ev)
	}
}

// misread records a reader's error: unreadable when the page does not show what was looked for
// in a way verify reads, else a failure.
func (c *ck) misread(p *page, err error, format string, args ...any) {
	var ue *unreadableError
	if errors.As(err, &ue) {
		c.unreadable(p, err, format, args...)
		return
	}
	ev := p.evidence(fmt.Sprintf(format, args...), err.Error())
	c.fail(&ev, format+": %v", append(args, err)...)
}

// skip records why the check could not be made: the fact that is missing.
func (c *ck) skip(format string, args ...any) {
	if c.Outcome == "" {
		c.Outcome, c.Reason = report.CheckSkip, clean(fmt.Sprintf(format, args...), 500)
	}
}

// done reports whether the check already has its outcome (a failure, an unreadable page or a
// skip).
func (c *ck) done() bool { return c.Outcome != "" }

// transport records a request that got no answer.
func (c *ck) transport(p page, err error) {
	c.fail(&report.Evidence{Request: dsn.Redact(p.req), Expected: "an answer", Got: clean(err.Error(), 300)}, "the target did not answer: %v", err)
}

// check runs one check: fn records failures, unreadable pages and skips; a check that records
// none passes. Every check arranges what it needs itself (its own accounts, its own trades),
// so one that cannot be made says which fact is missing rather than naming another check.
func (v *verifier) check(id string, level int, rule string, fn func(c *ck)) {
	c := &ck{Check: report.Check{ID: id, Level: level, Rule: rule}, v: v}
	if level != v.level && v.cfg.Progress != nil && level >= 1 && level <= len(Levels) {
		fmt.Fprintf(v.cfg.Progress, "verify: level %d of %d, %s…\n", level, len(Levels), Levels[level-1])
	}
	v.level = level
	start := time.Now()
	if err := v.ctx.Err(); err != nil || v.expired() {
		c.skip("verification interrupted")
		if v.expired() {
			c.Reason = fmt.Sprintf("not made: the verification's deadline (%v) had passed", v.cfg.Deadline)
		}
	} else {
		fn(c)
	}
	v.res.Record(c.Check, start, nil)
}

// nextUID is a new account's user id.
func (v *verifier) nextUID() string {
	v.n++
	return fmt.Sprintf("vf-%s-%d", v.run, v.n)
}

// account is one account of verify's own that a group of checks shares, or why it could not
// be registered.
type account struct {
	u   *user
	why string
}

// shared is the account a group of checks shares (key names the group), registered by the
// first of them that asks. A registration that failed is not tried again: that check failed
// with the evidence; the next ones are skipped, naming the fact.
func (v *verifier) shared(c *ck, key string) (*user, bool) {
	if a, ok := v.accounts[key]; ok {
		if a.u == nil {
			c.skip("no account could be registered for these checks: %s", a.why)
		}
		return a.u, a.u != nil
	}
	a := &account{}
	v.accounts[key] = a
	u, _, ok := v.register(c, key)
	if ok {
		a.u = u
	} else {
		a.why = c.Reason
	}
	return a.u, ok
}

// closeAccounts drops the shared accounts' connections.
func (v *verifier) closeAccounts() {
	for _, a := range v.accounts {
		if a.u != nil {
			a.u.close()
		}
	}
}

// Opening balance of verify's accounts.
const openBalance = "100000.00"

// register registers a new account as a new visitor would: the registration form
// (/daytrader/register.jsp) filled in and sent with every field it carries, or, where the
// target shows no such form, the servlet contract's fields posted to /daytrader/app. The
// visitor is then logged in (DayTrader answers a registration with the new user's home page).
func (v *verifier) register(c *ck, label string) (*user, page, bool) {
	u := v.newUser()
	u.uid, u.pass = v.nextUID(), "vf-"+v.run
	v.res.Accounts = append(v.res.Accounts, u.uid)
	p, err := u.follow(v.ctx, "/daytrader/register.jsp", []string{"user id", "passwd"}, "",
		registerForm(u.uid, u.pass, "Verify "+label+" "+v.run, "vf"+v.run+"@example.com"), "/daytrader/app")
	if err != nil {
		c.transport(p, err)
		return u, p, false
	}
	if p.status != 200 || !p.doc().greets(u.uid) {
		ev := p.evidence("200 and the new user's home page (Welcome "+u.uid+")", fmt.Sprintf("status %d", p.status))
		c.fail(&ev, "registering %s did not open the new user's home page", u.uid)
		return u, p, false
	}
	return u, p, true
}

func registerForm(uid, pass, name, email string) url.Values {
	return url.Values{"action": {"register"}, "Full Name": {name}, "snail mail": {"1 Verify Way"}, "email": {email},
		"user id": {uid}, "passwd": {pass}, "confirm passwd": {pass}, "money": {openBalance},
		"Credit Card Number": {"0000-1111-2222-3333"}}
}

// follow is a form followed as a browser follows it: the page at path fetched, its first form
// with every field in names found, and that form sent with all it carries and fill set over
// it, pressing the submit button named submit (""; the first named one). A page without such a
// form (a target that has no register.jsp, say) has fill sent to fallback as the contract
// defines it (POST), when fallback is not "".
func (u *user) follow(ctx context.Context, path string, names []string, submit string, fill url.Values, fallback string) (page, error) {
	shown, err := u.get(ctx, path)
	if err != nil {
		return shown, err
	}
	f, ok := shown.doc().formWith(names...)
	if shown.status != 200 || !ok {
		if fallback == "" {
			return shown, fmt.Errorf("%s shows no form with the fields %s", path, strings.Join(names, ", "))
		}
		return u.post(ctx, fallback, fill)
	}
	return u.submit(ctx, &shown, f, submit, fill)
}

// submit sends a form of page p as a browser does: to its action (relative to p's address; an
// empty action is p's own address), by its method.
func (u *user) submit(ctx context.Context, p *page, f form, submit string, fill url.Values) (page, error) {
	action, err := p.url.Parse(f.action)
	if err != nil {
		return page{req: "form " + clean(f.action, 100)}, fmt.Errorf("the form's action %q is not a URL", clean(f.action, 100))
	}
	vals := f.values(submit, fill)
	if f.method == "POST" {
		return u.do(ctx, "POST", action, vals)
	}
	action.RawQuery = vals.Encode()
	return u.do(ctx, "GET", action, nil)
}

// snapshot is one account as its pages show it at one moment.
type snapshot struct {
	cash, open money.Money
	holdings   []holding
	orders     []order
	account    page // the account page it was read from
	portfolio  page
}

// snap reads the account and portfolio pages of u; a failure, or a page verify cannot read, is
// recorded on c.
func (u *user) snap(c *ck) (snapshot, bool) {
	var s snapshot
	if !u.snapAccount(c, &s) {
		return s, false
	}
	return s, u.snapPortfolio(c, &s)
}

// snapAccount reads the account page into s: cash, opening balance and orders.
func (u *user) snapAccount(c *ck, s *snapshot) bool {
	var err error
	if s.account, err = u.get(u.v.ctx, "/daytrader/app?action=account"); err != nil {
		c.transport(s.account, err)
		return false
	}
	if s.account.status != 200 {
		ev := s.account.evidence("200 and the account page", fmt.Sprintf("status %d", s.account.status))
		c.fail(&ev, "the account page of %s did not load", u.uid)
		return false
	}
	d := s.account.doc()
	if s.cash, err = d.amount("cash balance"); err == nil {
		if s.open, err = d.amount("opening balance"); err == nil {
			s.orders, err = readOrders(d)
		}
	}
	if err != nil {
		c.misread(&s.account, err, "the cash balance, opening balance and orders of %s on the account page", u.uid)
		return false
	}
	return true
}

// snapPortfolio reads the portfolio page into s: the holdings, each with its sell link.
func (u *user) snapPortfolio(c *ck, s *snapshot) bool {
	var err error
	if s.portfolio, err = u.get(u.v.ctx, "/daytrader/app?action=portfolio"); err != nil {
		c.transport(s.portfolio, err)
		return false
	}
	if s.portfolio.status != 200 {
		ev := s.portfolio.evidence("200 and the portfolio page", fmt.Sprintf("status %d", s.portfolio.status))
		c.fail(&ev, "the portfolio page of %s did not load", u.uid)
		return false
	}
	if s.holdings, err = readHoldings(s.portfolio.doc()); err != nil {
		c.misread(&s.portfolio, err, "the holdings of %s on the portfolio page", u.uid)
		return false
	}
	resolveSells(&s.portfolio, s.holdings)
	return true
}

// resolveSells makes the holdings' sell links and forms absolute, against the page that showed
// them.
func resolveSells(p *page, hs []holding) {
	for i, h := range hs {
		if h.sell != "" {
			if l, err := p.url.Parse(h.sell); err == nil {
				hs[i].sell = l.String()
			}
		}
		if h.sellForm != nil {
			if l, err := p.url.Parse(h.sellForm.action); err == nil {
				f := *h.sellForm
				f.action = l.String()
				hs[i].sellForm = &f
			}
		}
	}
}

func (s snapshot) order(id int64) (order, bool) {
	for _, o := range s.orders {
		if o.ID == id {
			return o, true
		}
	}
	return order{}, false
}

func (s snapshot) holding(id int64) (holding, bool) {
	for _, h := range s.holdings {
		if h.ID == id {
			return h, true
		}
	}
	return holding{}, false
}

// placed is an order as its confirmation page showed it.
type placed struct {
	id   int64
	page page
	at   time.Time
}

// buy places a buy order as a browser does: the quotes page of symbol, its buy form for that
// symbol with the quantity filled in (the contract's POST where the page has no such form).
// ok is false (and c failed) when no order was confirmed.
func (u *user) buy(c *ck, symbol string, qty int64) (placed, bool) {
	fill := url.Values{"action": {"buy"}, "symbol": {symbol}, "quantity": {fmt.Sprint(qty)}}
	p, err := u.follow(u.v.ctx, "/daytrader/app?action=quotes&symbols="+url.QueryEscape(symbol), []string{"symbol=" + symbol, "quantity"}, "",
		fill, "/daytrader/app")
	return u.confirmed(c, p, err, fmt.Sprintf("buy %d %s", qty, symbol))
}

// sell places a sell order for a whole holding as a browser does: by the link its portfolio
// row shows, or the row's form with all it carries (the servlet's action=sell&holdingID=N
// where the row shows neither, as for another user's holding).
func (u *user) sell(c *ck, h holding) (placed, bool) {
	var p page
	var err error
	if h.sell == "" && h.sellForm != nil { // its action is absolute (resolveSells)
		p, err = u.submit(u.v.ctx, &page{url: u.v.base}, *h.sellForm, "", nil)
		return u.confirmed(c, p, err, fmt.Sprintf("sell holding %d", h.ID))
	}
	if h.sell != "" {
		if l, perr := url.Parse(h.sell); perr == nil {
			p, err = u.do(u.v.ctx, "GET", l, nil)
			return u.confirmed(c, p, err, fmt.Sprintf("sell holding %d", h.ID))
		}
	}
	p, err = u.get(u.v.ctx, fmt.Sprintf("/daytrader/app?action=sell&holdingID=%d", h.ID))
	return u.confirmed(c, p, err, fmt.Sprintf("sell holding %d", h.ID))
}

func (u *user) confirmed(c *ck, p page, err error, what string) (placed, bool) {
	if err != nil {
		c.transport(p, err)
		return placed{}, false
	}
	id, found := orderID(p.doc())
	if p.status != 200 || !submitted(p.doc()) || !found {
		ev := p.evidence("200 and an order confirmation naming its order id (\"… has been submitted\")", fmt.Sprintf("status %d", p.status))
		c.fail(&ev, "%s of %s was not confirmed", what, u.uid)
		return placed{}, false
	}
	return placed{id: id, page: p, at: time.Now()}, true
}

// waitFinal polls u's account page until the orders are final or the bound passes; it returns
// the last snapshot and the orders not final by then.
func (u *user) waitFinal(c *ck, ids []int64) (snapshot, []int64, bool) {
	deadline := time.Now().Add(u.v.cfg.OrderBound)
	for {
		s, ok := u.snap(c)
		if !ok {
			return s, nil, false
		}
		var open []int64
		for _, id := range ids {
			if o, found := s.order(id); !found || !o.final() {
				open = append(open, id)
			}
		}
		if len(open) == 0 && len(ids) > 0 {
			// a page reads the balance and the orders one after the other: an order that
			// completed between the two shows completed beside the balance before it. Read
			// again, now that nothing is pending.
			s, ok = u.snap(c)
			return s, nil, ok
		}
		if len(open) == 0 || time.Now().After(deadline) {
			return s, open, true
		}
		select {
		case <-u.v.ctx.Done():
			return s, open, true
		case <-time.After(100 * time.Millisecond):
		}
	}
}
