// Package verifyservices is `tradebench verify --services ADDR --access soap|rest|grpc`: the
// conformance suite of the business-services contract (trade.Service) as a services host offers
// it over SOAP, REST or gRPC. Where bench/verify checks a web tier through its pages, this checks
// the contract a web tier calls: the same business rules, isolation and input rules, seen through
// the service's own results and errors.
//
// It calls the host only through a trade.Service (a trade/remote client, exactly what a web tier
// uses), never the server's code nor its database: the layering test allows it trade (the
// contract) and trade/remote (the clients) and nothing of the server. It registers its own
// accounts (user ids vsf-RUN-N) and trades only with them, so it is safe on a shared host.
//
// Its results are a report.Verification, as bench/verify's, so the summary, the JSON, the JUnit
// and the HTML report look the same; its levels are the two that make sense without pages:
//
//  1. business rules: opening balance, buy and sell arithmetic, the 24.95 commission, orders
//     final (at once when the host's orders are synchronous, else within a bound), the account
//     and its holdings consistent;
//  2. isolation and input: one user cannot read or sell another's holding; bad input gets a
//     clear domain error (never a system fault) and changes nothing.
package verifyservices

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/tradebench/tradebench/bench/verify"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/remote"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
)

// Config is one verification of a services host.
type Config struct {
	// Addr is the host's endpoint for Access: its SOAP/REST address (host:port) for soap and
	// rest, its gRPC address for grpc.
	Addr string
	// Access is the transport: soap, rest or grpc.
	Access string
	// Token is the deployment's service token. Empty: Dial resolves it as every client of a
	// deployment does (svcauth.Resolve: $TRADEBENCH_SERVICE_TOKEN, TokenFile, or
	// ./tradebench-service-token), and sends none when none is configured.
	Token string
	// TokenFile holds the service token (must exist when given).
	TokenFile string
	// Timeout bounds each call (default 30s).
	Timeout time.Duration
	// OrderBound is how long an order may take to become final (default 10s).
	OrderBound time.Duration
	// SyncOrders: the host's orders are synchronous, so every order must be final when placed.
	SyncOrders bool
	// Symbols are the quotes verify trades (at least two; default s:1,s:2).
	Symbols []string
	// Progress, if set, gets one line per check as it completes.
	Progress io.Writer
}

// Defaults.
const (
	DefaultTimeout    = 30 * time.Second
	DefaultOrderBound = 10 * time.Second
)

// DefaultSymbols are the quotes verify trades when none are given.
var DefaultSymbols = []string{"s:1", "s:2"}

// Levels are the levels' names, level 1 first.
var Levels = []string{"business rules", "isolation and input"}

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
}

// Validate checks the configuration as SetDefaults leaves it (Addr and Access only when Dial
// needs them: Check is given its service).
func (c *Config) Validate() error {
	switch {
	case c.Timeout < 0:
		return setting.Errorf("Timeout", "must not be negative")
	case c.OrderBound < 0:
		return setting.Errorf("OrderBound", "must not be negative")
	case len(c.Symbols) < 2:
		return setting.Errorf("Symbols", "needs at least two symbols")
	}
	for _, s := range c.Symbols {
		if trade.ValidateSymbol(s) != nil {
			return setting.Errorf("Symbols", "%q is not a symbol", s)
		}
	}
	return nil
}

// Notice is what verify says before it changes anything: the accounts it creates.
func Notice(run string) string { return verify.AccountsNotice("vsf", run) }

// Dial is a client of cfg.Addr over cfg.Access, as a web tier makes it, with cfg.Token.
func Dial(cfg Config) (remote.Client, error) {
	switch cfg.Access {
	case remote.SOAP, remote.REST, remote.GRPC:
	default:
		return nil, setting.Errorf("Access", "%q is not a transport of the business services: use soap, rest or grpc", cfg.Access)
	}
	if cfg.Addr == "" {
		return nil, setting.Errorf("Addr", "is required: the services host's %s endpoint (host:port)", cfg.Access)
	}
	cfg.SetDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Token == "" {
		token, _, _, err := svcauth.Resolve(cfg.TokenFile, false)
		if err != nil {
			return nil, &setting.Error{Field: "TokenFile", Err: err}
		}
		cfg.Token = token
	}
	svc, err := remote.Dial(cfg.Access, cfg.Addr, remote.Options{Timeout: cfg.Timeout, Auth: svcauth.Client{Token: cfg.Token}})
	if err != nil {
		return nil, setting.Errorf("Addr", "%v", err)
	}
	return svc, nil
}

// Run dials cfg.Addr over cfg.Access and verifies it (Check). The error is for a verification
// that could not be made at all (a bad configuration, an interrupted run).
func Run(ctx context.Context, cfg Config, run string) (*report.Verification, error) {
	svc, err := Dial(cfg)
	if err != nil {
		return nil, err
	}
	defer svc.Close()
	return Check(ctx, svc, cfg, run)
}

// RunNoticed is Run as the verify command makes it: it dials cfg.Addr, makes sure the host
// answers (a *setting.Error of Addr if not), says on log what it will create (Notice), and
// verifies it with a line per check on log.
func RunNoticed(ctx context.Context, cfg Config, log io.Writer) (*report.Verification, error) {
	svc, err := Dial(cfg)
	if err != nil {
		return nil, err
	}
	defer svc.Close()
	cfg.SetDefaults()
	if err := remote.Reachable(ctx, svc, cfg.Timeout); err != nil {
		return nil, setting.Errorf("Addr", "%s: the services host does not answer over %s: %v", cfg.Addr, cfg.Access, err)
	}
	run := verify.NewRun()
	fmt.Fprintf(log, "verify %s://%s: %s\n", cfg.Access, cfg.Addr, Notice(run))
	cfg.Progress = log
	return Check(ctx, svc, cfg, run)
}

// Check verifies svc, whatever implements it; the target it names is cfg.Access and cfg.Addr.
func Check(ctx context.Context, svc trade.Service, cfg Config, run string) (*report.Verification, error) {
	cfg.SetDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	v := &verifier{cfg: cfg, svc: svc, run: run, ctx: ctx, failed: map[string]bool{},
		res: report.NewVerification(cfg.Access + "://" + cfg.Addr)}
	v.business()
	v.isolation()
	v.input()
	return v.res, v.res.Finish(ctx, Levels)
}

// verifier is one verification's state.
type verifier struct {
	cfg    Config
	svc    trade.Service
	run    string
	ctx    context.Context
	res    *report.Verification
	failed map[string]bool // check id -> failed or skipped
	n      int             // accounts registered

	a, b     string // the two accounts of the business and isolation checks
	bHolding int64  // b's holding, which a must not read nor sell
}

// ck is one check while it runs.
type ck struct {
	report.Check
}

// fail records a failure with its evidence; the first reason is kept, every evidence.
func (c *ck) fail(request, expected, got string, format string, args ...any) {
	if c.Outcome != report.CheckFail {
		c.Outcome, c.Reason = report.CheckFail, fmt.Sprintf(format, args...)
	}
	c.Evidence = append(c.Evidence, report.Evidence{Request: request, Expected: expected, Got: clip(got)})
}

// callFailed records a call that should have succeeded.
func (c *ck) callFailed(request string, err error) {
	c.fail(request, "success", err.Error(), "%s failed: %v", request, err)
}

func (c *ck) skip(format string, args ...any) {
	if c.Outcome == "" {
		c.Outcome, c.Reason = report.CheckSkip, fmt.Sprintf(format, args...)
	}
}

// check runs one check, as bench/verify's: fn records failures; a check that needs one that
// did not pass is skipped.
func (v *verifier) check(id string, level int, rule string, needs []string, fn func(c *ck)) {
	c := &ck{Check: report.Check{ID: id, Level: level, Rule: rule}}
	start := time.Now()
	for _, n := range needs {
		if v.failed[n] {
			c.skip("needs %s, which did not pass", n)
			break
		}
	}
	if c.Outcome == "" {
		if v.ctx.Err() != nil {
			c.skip("verification interrupted")
		} else {
			fn(c)
		}
	}
	if !v.res.Record(c.Check, start, v.cfg.Progress) {
		v.failed[id] = true
	}
}

// commission is the DayTrader fee of every order, stated here and not read from package trade:
// the rule is the application's, whatever the implementation under test says its fee is.
const commission = trade.Money(2495)

// openBalance is the opening balance of verify's accounts.
const openBalance = trade.Money(100_000_00)

func (v *verifier) nextUID() string {
	v.n++
	return fmt.Sprintf("vsf-%s-%d", v.run, v.n)
}

func (v *verifier) registerRequest(uid string) trade.RegisterRequest {
	return trade.RegisterRequest{UserID: uid, Password: "vsf-" + v.run, FullName: "Verify " + v.run, Address: "1 Verify Way",
		Email: "vsf" + v.run + "@example.com", CreditCard: "0000-1111-2222-3333", OpenBalance: openBalance}
}

// register registers a new account of verify's own.
func (v *verifier) register(c *ck) (string, bool) {
	uid := v.nextUID()
	v.res.Accounts = append(v.res.Accounts, uid)
	req := fmt.Sprintf("Register(%s, openBalance %s)", uid, openBalance)
	a, err := v.svc.Register(v.ctx, v.registerRequest(uid))
	if err != nil {
		c.callFailed(req, err)
		return uid, false
	}
	if a.UserID != uid || a.Balance != openBalance || a.OpenBalance != openBalance {
		c.fail(req, fmt.Sprintf("account %s with balance and opening balance %s", uid, openBalance),
			fmt.Sprintf("account %s, balance %s, opening balance %s", a.UserID, a.Balance, a.OpenBalance),
			"Register did not open %s with the stated balance", uid)
		return uid, false
	}
	return uid, true
}

// state is an account as the contract shows it at one moment.
type state struct {
	account  trade.Account
	holdings []trade.Holding
	orders   []trade.Order
}

func (s state) holding(id int64) (trade.Holding, bool) {
	for _, h := range s.holdings {
		if h.HoldingID == id {
			return h, true
		}
	}
	return trade.Holding{}, false
}

func (s state) order(id int64) (trade.Order, bool) {
	for _, o := range s.orders {
		if o.OrderID == id {
			return o, true
		}
	}
	return trade.Order{}, false
}

// read reads uid's account, holdings and orders; a failure is recorded on c.
func (v *verifier) read(c *ck, uid string) (state, bool) {
	var s state
	var err error
	if s.account, err = v.svc.GetAccountData(v.ctx, uid); err != nil {
		c.callFailed("GetAccountData("+uid+")", err)
		return s, false
	}
	if s.holdings, err = v.svc.GetHoldings(v.ctx, uid); err != nil {
		c.callFailed("GetHoldings("+uid+")", err)
		return s, false
	}
	if s.orders, err = v.svc.GetOrders(v.ctx, uid, 0); err != nil {
		c.callFailed("GetOrders("+uid+")", err)
		return s, false
	}
	return s, true
}

// final waits until the order is final (at once when the host's orders are synchronous) and
// returns it as GetOrders shows it, with the account's state then.
func (v *verifier) final(c *ck, uid string, placed trade.Order, what string) (trade.Order, state, bool) {
	if v.cfg.SyncOrders && !placed.Status.Final() {
		c.fail(what, "a final order at once (the host's orders are synchronous)", fmt.Sprintf("order %d %s", placed.OrderID, placed.Status),
			"%s: order %d was %s when placed; synchronous orders are final at once", what, placed.OrderID, placed.Status)
		return placed, state{}, false
	}
	deadline := time.Now().Add(v.cfg.OrderBound)
	for {
		s, ok := v.read(c, uid)
		if !ok {
			return placed, s, false
		}
		o, found := s.order(placed.OrderID)
		if found && o.Status.Final() {
			// read reads the balance before the orders: an order that became final between
			// the two shows final beside the balance before it. Read again, now it is final.
			s, ok = v.read(c, uid)
			return o, s, ok
		}
		if time.Now().After(deadline) {
			got := "not listed by GetOrders"
			if found {
				got = string(o.Status)
			}
			c.fail(what, fmt.Sprintf("order %d final within %v", placed.OrderID, v.cfg.OrderBound), got,
				"%s: order %d not final within %v", what, placed.OrderID, v.cfg.OrderBound)
			return o, s, false
		}
		select {
		case <-v.ctx.Done():
			return o, s, false
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (v *verifier) isolation() {
	const L = 2
	v.check("isolation.accounts", L, "two accounts of verify's own, the second holding shares (the setup the checks below need)", nil, func(c *ck) {
		if v.a == "" {
			var ok bool
			if v.a, ok = v.register(c); !ok {
				return
			}
		}
		var ok bool
		if v.b, ok = v.register(c); !ok {
			return
		}
		req := fmt.Sprintf("Buy(%s, %s, 5)", v.b, v.cfg.Symbols[1])
		o, err := v.svc.Buy(v.ctx, v.b, v.cfg.Symbols[1], 5)
		if err != nil {
			c.callFailed(req, err)
			return
		}
		o, _, ok = v.final(c, v.b, o, req)
		if ok && (o.HoldingID == 0 || o.Status == trade.StatusCancelled) {
			c.fail(req, "a completed buy naming its holding", fmt.Sprintf("%+v", o), "the second account's buy created no holding")
			return
		}
		v.bHolding = o.HoldingID
	})
	needs := []string{"isolation.accounts"}
	v.check("isolation.get_other", L, "GetHolding of another user's holding is refused "+
		"(not found, as a holding that does not exist)", needs, func(c *ck) {
		req := fmt.Sprintf("GetHolding(%s, %d) (a holding of %s)", v.a, v.bHolding, v.b)
		h, err := v.svc.GetHolding(v.ctx, v.a, v.bHolding)
		if err == nil {
			c.fail(req, "refused", fmt.Sprintf("%+v", h), "%s read %s's holding", v.a, v.b)
		} else if e := trade.AsError(err); e == nil || (e.Code != trade.CodeNotFound && e.Code != trade.CodeForbidden) {
			c.fail(req, "a not-found or permission-denied error", err.Error(), "GetHolding of another's holding answered a system fault")
		}
	})
	v.check("isolation.sell_other", L, "Sell of another user's holding is refused (never a system fault, never an order) "+
		"and changes neither account", needs, func(c *ck) {
		beforeA, okA := v.read(c, v.a)
		beforeB, okB := v.read(c, v.b)
		if !okA || !okB {
			return
		}
		req := fmt.Sprintf("Sell(%s, holding %d, all) (a holding of %s)", v.a, v.bHolding, v.b)
		o, err := v.svc.Sell(v.ctx, v.a, v.bHolding, 0)
		if err == nil {
			c.fail(req, "refused", fmt.Sprintf("order %d %s", o.OrderID, o.Status), "%s sold %s's holding", v.a, v.b)
		} else if e := trade.AsError(err); e == nil || (e.Code != trade.CodeNotFound && e.Code != trade.CodeForbidden) {
			c.fail(req, "a not-found or permission-denied error", err.Error(), "Sell of another's holding answered a system fault")
		}
		if err == nil {
			time.Sleep(min(v.cfg.OrderBound, time.Second)) // let an asynchronous order do its damage, so the evidence shows it
		}
		v.unchanged(c, v.a, beforeA, req)
		v.unchanged(c, v.b, beforeB, req)
	})
}

// unchanged fails c unless uid's balance, holdings and orders are as before.
func (v *verifier) unchanged(c *ck, uid string, before state, after string) {
	s, ok := v.read(c, uid)
	if !ok {
		return
	}
	if s.account.Balance != before.account.Balance || len(s.holdings) != len(before.holdings) || len(s.orders) != len(before.orders) {
		c.fail("GetAccountData/GetHoldings/GetOrders("+uid+") after "+after,
			fmt.Sprintf("unchanged: balance %s, %d holdings, %d orders", before.account.Balance, len(before.holdings), len(before.orders)),
			fmt.Sprintf("balance %s, %d holdings, %d orders", s.account.Balance, len(s.holdings), len(s.orders)),
			"%s changed %s's account", after, uid)
	}
}

// changedAnyway is a call that was refused yet changed something (an account created, a
// profile changed): the bad input was not refused, whatever the error said.
type changedAnyway struct{ what string }

func (e *changedAnyway) Error() string { return e.what }

// refused fails c unless err is a domain error: a clear refusal, not a success nor a system fault.
func refused(c *ck, req string, err error) {
	var changed *changedAnyway
	switch e := trade.AsError(err); {
	case errors.As(err, &changed):
		c.fail(req, "refused, and nothing changed", changed.what, "%s changed something: %s", req, changed.what)
	case err == nil:
		c.fail(req, "refused with a domain error", "accepted", "%s was accepted", req)
	case e == nil:
		c.fail(req, "refused with a domain error (invalid argument, not found, …)", err.Error(),
			"%s answered a system fault, not a clear refusal", req)
	case strings.TrimSpace(e.Message) == "":
		c.fail(req, "an error that says what is wrong", fmt.Sprintf("code %s, no message", e.Code), "%s was refused without a message", req)
	}
}

// bad is one call with bad input.
type bad struct {
	req  string
	call func() error
}

func (v *verifier) input() {
	const L = 2
	needs := []string{"isolation.accounts"}
	sym := v.cfg.Symbols[0]
	run := func(id, rule string, calls func() []bad) {
		v.check(id, L, rule, needs, func(c *ck) {
			before, ok := v.read(c, v.a)
			if !ok {
				return
			}
			for _, b := range calls() {
				refused(c, b.req, b.call())
			}
			v.unchanged(c, v.a, before, "the calls above")
		})
	}
	buy := func(symbol string, q int64) bad {
		return bad{fmt.Sprintf("Buy(%s, %.40q, %d)", v.a, symbol, q), func() error { _, err := v.svc.Buy(v.ctx, v.a, symbol, q); return err }}
	}
	sell := func(id, q int64) bad {
		return bad{fmt.Sprintf("Sell(%s, holding %d, %d)", v.a, id, q), func() error { _, err := v.svc.Sell(v.ctx, v.a, id, q); return err }}
	}
	get := func(id int64) bad {
		return bad{fmt.Sprintf("GetHolding(%s, %d)", v.a, id), func() error { _, err := v.svc.GetHolding(v.ctx, v.a, id); return err }}
	}
	run("input.quantity", "a zero, negative or huge quantity is refused with a clear error and changes nothing", func() []bad {
		return []bad{buy(sym, 0), buy(sym, -5), buy(sym, math.MaxInt64), buy(sym, trade.MaxQuantity+1)}
	})
	run("input.symbol", "an unknown, empty, overlong or marked-up symbol is refused with a clear error and changes nothing", func() []bad {
		return []bad{buy("vsf-no-such-symbol", 1), buy("", 1), buy(strings.Repeat("s", 5000), 1), buy("<b>s:1</b>", 1),
			{fmt.Sprintf("GetQuote(%q)", "vsf-no-such-symbol"), func() error { _, err := v.svc.GetQuote(v.ctx, "vsf-no-such-symbol"); return err }}}
	})
	run("input.holding_id", "a holding id that is zero, negative, huge or unknown is refused with a clear error and changes nothing", func() []bad {
		return []bad{sell(0, 0), sell(-1, 0), sell(math.MaxInt64, 0), get(0), get(-7), get(math.MaxInt64)}
	})
	run("input.fields", "a registration or profile with an overlong, empty or out-of-range field is refused with a clear error "+
		"and creates or changes nothing", func() []bad {
		long := strings.Repeat("x", 5000)
		reg := func(what string, mut func(*trade.RegisterRequest)) bad {
			r := v.registerRequest(v.nextUID())
			v.res.Accounts = append(v.res.Accounts, r.UserID)
			mut(&r)
			return bad{fmt.Sprintf("Register(%.40q, %s)", r.UserID, what), func() error {
				_, err := v.svc.Register(v.ctx, r)
				if err == nil {
					return nil
				}
				if _, gerr := v.svc.GetAccountData(v.ctx, r.UserID); gerr == nil {
					return &changedAnyway{fmt.Sprintf("the account %.40q exists (the error: %v)", r.UserID, err)}
				}
				return err
			}}
		}
		prof := trade.AccountProfile{UserID: v.a, FullName: long, Address: "1 Verify Way", Email: "vsf@example.com", CreditCard: "0"}
		return []bad{
			reg("an overlong user id", func(r *trade.RegisterRequest) { r.UserID = r.UserID + long }),
			reg("an empty user id", func(r *trade.RegisterRequest) { r.UserID = "" }),
			reg("an overlong full name", func(r *trade.RegisterRequest) { r.FullName = long }),
			reg("a negative opening balance", func(r *trade.RegisterRequest) { r.OpenBalance = -1 }),
			reg("an opening balance over the limit", func(r *trade.RegisterRequest) { r.OpenBalance = trade.MaxOpenAmount + 1 }),
			{fmt.Sprintf("UpdateAccountProfile(%s, an overlong full name)", v.a), func() error {
				_, err := v.svc.UpdateAccountProfile(v.ctx, prof)
				if p, gerr := v.svc.GetAccountProfileData(v.ctx, v.a); gerr == nil && p.FullName == long {
					return &changedAnyway{fmt.Sprintf("the full name changed (the error: %v)", err)}
				}
				return err
			}},
		}
	})
}

// clip bounds what a check quotes of an answer.
func clip(s string) string {
	const max = 300
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
