package web

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/tradebench/tradebench/trade"
)

// The page handlers. Each serves both contracts: form field names are DayTrader's, and the
// rendering (brand, links, hidden fields) follows q.dt.

func (a *app) showLogin(q *req) error {
	a.renderLogin(q, http.StatusOK, "", "")
	return nil
}

func (a *app) doLogin(q *req) error {
	uid := strings.TrimSpace(q.r.Form.Get("uid"))
	pw := q.r.Form.Get("passwd")
	if uid == "" || pw == "" {
		a.renderLogin(q, http.StatusBadRequest, uid, "Enter your user id and password.")
		return nil
	}
	if len(uid) > trade.MaxUserIDLen || len(pw) > trade.MaxFieldLen {
		a.renderLogin(q, http.StatusBadRequest, "", "The user id or password is too long.")
		return nil
	}
	acct, err := a.svc.Login(trade.WithClient(q.r.Context(), q.r.RemoteAddr), uid, pw)
	if te := trade.AsError(err); te != nil && te.Code == trade.CodeTooManyRequests {
		setRetryAfter(q.w, te)
		a.renderLogin(q, http.StatusTooManyRequests, uid, "Too many failed logins for this user id. Please wait a minute and try again.")
		return nil
	}
	if err != nil {
		if te := trade.AsError(err); te != nil && (te.Code == trade.CodeUnauthorized || te.Code == trade.CodeNotFound || te.Code == trade.CodeInvalid) {
			// one message for an unknown user and a wrong password: do not reveal which user ids exist
			a.renderLogin(q, http.StatusUnauthorized, uid, "The user id or password is not correct.")
			return nil
		}
		return err
	}
	a.startSession(q, acct)
	if q.dt {
		// DayTrader answers the login with the home page itself; its scripts check the markers there
		return a.renderHome(q, "")
	}
	http.Redirect(q.w, q.r, "/trade/home", http.StatusSeeOther)
	return nil
}

func (a *app) startSession(q *req, acct trade.Account) {
	// The login (or registration) just read the account's logout count in its own
	// transaction: that is a check of the new session, so the pages that only read within
	// SessionCheckInterval need not ask again (one statement less per session; a tenth of
	// DayTrader's mix's sessions' first pages).
	a.sess.checks.put(acct.UserID, acct.LogoutCount, a.sess.now())
	ss := a.sess.start(acct)
	a.sess.write(q.w, ss)
	q.sess, q.authed, q.sessErr = ss, true, nil
}

func (a *app) doLogout(q *req) error {
	var err error
	if q.authed {
		err = a.svc.Logout(q.r.Context(), q.sess.UserID)
		a.sess.forget(q.sess.UserID)
	}
	// the session ends here whatever the services say: a failed logout must not keep it alive
	a.sess.clear(q.w)
	q.authed, q.sess = false, session{}
	if err != nil && trade.AsError(err) == nil {
		return err
	}
	a.renderLogin(q, http.StatusOK, "", "You have logged out.")
	return nil
}

func (a *app) home(q *req) error { return a.renderHome(q, "") }

// homeData is the home page: account summary and market summary.
type homeData struct {
	Account       trade.Account
	NumHoldings   int
	HoldingsTotal trade.Money // purchase basis, as DayTrader's home page
	Total         trade.Money // cash + holdings
	Gain          trade.Money // total - opening balance
	GainPct       string
	Market        trade.MarketSummary
}

func (a *app) renderHome(q *req, msg string) error {
	ctx, uid := q.r.Context(), q.sess.UserID
	acct, sum, err := trade.GetAccountSummary(ctx, a.svc, uid)
	if err != nil {
		return a.sessionUserErr(q, err)
	}
	ms, err := a.svc.GetMarketSummary(ctx)
	if err != nil {
		return err
	}
	d := homeData{Account: acct, NumHoldings: sum.Count, HoldingsTotal: sum.Basis, Market: ms}
	d.Total = acct.Balance + d.HoldingsTotal
	d.Gain = d.Total - acct.OpenBalance
	d.GainPct = percent(d.Gain, acct.OpenBalance)
	a.render(q, http.StatusOK, "home", "Home", msg, d)
	return nil
}

// sessionUserErr handles the session's user not existing (e.g. the database was reset after
// the cookie was issued): the session is dropped and the visitor logs in again.
func (a *app) sessionUserErr(q *req, err error) error {
	if errors.Is(err, trade.ErrNotFound) {
		a.sess.clear(q.w)
		q.authed = false
		return errLoginRequired
	}
	return err
}

// accountData is the account page.
type accountData struct {
	Account trade.Account
	Profile trade.AccountProfile
	Orders  []trade.Order
	Closed  []trade.Order
	Limit   int
	Capped  bool
	FormErr string
}

func (a *app) account(q *req) error { return a.renderAccount(q, http.StatusOK, "", "", nil) }

// renderAccount shows the account page; a failed profile form comes back with its values.
func (a *app) renderAccount(q *req, status int, msg, formErr string, form *trade.AccountProfile) error {
	ctx, uid := q.r.Context(), q.sess.UserID
	// the alerts mark the orders completed, and the list agrees with them
	pg, err := trade.GetAccountPage(ctx, a.svc, uid, a.opts.OrdersLimit)
	if err != nil {
		return a.sessionUserErr(q, err)
	}
	prof := pg.Profile
	if form != nil {
		prof = *form
	}
	prof.Password = ""
	d := accountData{Account: pg.Account, Profile: prof, Orders: pg.Orders, Closed: pg.Closed, Limit: a.opts.OrdersLimit,
		Capped: len(pg.Orders) >= a.opts.OrdersLimit, FormErr: formErr}
	a.render(q, status, "account", "Account", msg, d)
	return nil
}

func (a *app) updateProfile(q *req) error {
	f := q.r.Form
	p := trade.AccountProfile{
		UserID:     q.sess.UserID,
		Password:   f.Get("password"),
		FullName:   strings.TrimSpace(f.Get("fullname")),
		Address:    strings.TrimSpace(f.Get("address")),
		Email:      strings.TrimSpace(f.Get("email")),
		CreditCard: strings.TrimSpace(f.Get("creditcard")),
	}
	if u := strings.TrimSpace(f.Get("userID")); u != "" && u != q.sess.UserID {
		return trade.Errorf(trade.CodeForbidden, "You can only update your own profile.")
	}
	ctx, err := q.keyed()
	if err == nil {
		err = checkFields([][2]string{{"full name", p.FullName}, {"address", p.Address}, {"email", p.Email}, {"credit card", p.CreditCard}})
	}
	if err == nil {
		err = trade.ValidateField("password", p.Password, false)
	}
	if err == nil && p.Password != f.Get("cpassword") {
		err = trade.Errorf(trade.CodeInvalid, "The password and its confirmation do not match.")
	}
	if err == nil {
		_, err = a.svc.UpdateAccountProfile(ctx, p)
	}
	if err != nil {
		te := trade.AsError(err)
		if te == nil || te.Code == trade.CodeNotFound {
			return a.sessionUserErr(q, err)
		}
		p.Password = ""
		return a.renderAccount(q, statusOf(te.Code), "", te.Message, &p)
	}
	if p.Password != "" {
		// The service counted the change as a logout, which ended every session of this user;
		// this one goes on with the new stamp.
		a.sess.forget(q.sess.UserID)
		acct, err := a.svc.GetAccountData(q.r.Context(), q.sess.UserID)
		if err != nil {
			return a.sessionUserErr(q, err)
		}
		q.sess.Stamp = acct.LogoutCount
		a.sess.write(q.w, q.sess)
	}
	return a.renderAccount(q, http.StatusOK, "Your profile has been updated.", "", nil)
}

// checkFields validates profile text: length, valid text, and no markup (it would be escaped
// on output anyway, but the issue asks that markup is refused, so nobody stores it by mistake).
func checkFields(fields [][2]string) error {
	for _, f := range fields {
		if err := trade.ValidateField(f[0], f[1], false); err != nil {
			return err
		}
		if strings.ContainsAny(f[1], "<>") {
			return trade.Errorf(trade.CodeInvalid, "%s must not contain < or >.", f[0])
		}
	}
	return nil
}

// portfolioRow is one holding valued at the current quote.
type portfolioRow struct {
	trade.Holding
	Quote   trade.Quote
	Priced  bool        // a quote was found
	Basis   trade.Money // purchase price × quantity
	Value   trade.Money // current price × quantity
	Gain    trade.Money
	GainPct string
}

type portfolioData struct {
	Rows                    []portfolioRow
	Basis, Value, Gain      trade.Money
	GainPct                 string
	HoldingsCount, Unpriced int
}

func (a *app) portfolio(q *req) error { return a.renderPortfolio(q, "") }

func (a *app) renderPortfolio(q *req, msg string) error {
	hs, qs, err := trade.GetHoldingsWithQuotes(q.r.Context(), a.svc, q.sess.UserID)
	if err != nil {
		return a.sessionUserErr(q, err)
	}
	d := portfolioData{HoldingsCount: len(hs)}
	d.Rows = make([]portfolioRow, 0, len(hs))
	for i, h := range hs {
		r := portfolioRow{Holding: h, Basis: h.PurchasePrice.Times(h.Quantity)}
		r.Quote, r.Priced = qs[i], qs[i].Symbol != ""
		if r.Priced {
			r.Value = r.Quote.Price.Times(h.Quantity)
			r.Gain = r.Value - r.Basis
			r.GainPct = percent(r.Gain, r.Basis)
			d.Value += r.Value
			d.Gain += r.Gain
		} else {
			d.Unpriced++
		}
		d.Basis += r.Basis
		d.Rows = append(d.Rows, r)
	}
	d.GainPct = percent(d.Gain, d.Basis)
	a.render(q, http.StatusOK, "portfolio", "Portfolio", msg, d)
	return nil
}

// DefaultSymbols is the quotes page's list when none is given (DayTrader's default).
const DefaultSymbols = "s:0,s:1,s:2,s:3,s:4"

type quotesData struct {
	Symbols string
	Quotes  []trade.Quote
}

func (a *app) quotes(q *req) error {
	raw := strings.TrimSpace(q.r.Form.Get("symbols"))
	if raw == "" {
		raw = DefaultSymbols
	}
	syms, err := parseSymbols(raw)
	if err != nil {
		return err
	}
	qs, err := a.svc.GetQuotes(q.r.Context(), syms)
	if err != nil {
		return err
	}
	a.render(q, http.StatusOK, "quotes", "Quotes and Trading", "", quotesData{Symbols: strings.Join(syms, ","), Quotes: qs})
	return nil
}

// parseSymbols splits a comma-separated list, dropping blanks and duplicates.
func parseSymbols(raw string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for s := range strings.SplitSeq(raw, ",") {
		s = strings.TrimSpace(s)
		if s == "" || seen[s] {
			continue
		}
		if err := trade.ValidateSymbol(s); err != nil {
			return nil, err
		}
		seen[s] = true
		out = append(out, s)
		if len(out) > trade.MaxSymbols {
			return nil, trade.Errorf(trade.CodeInvalid, "At most %d symbols at once.", trade.MaxSymbols)
		}
	}
	if len(out) == 0 {
		return nil, trade.Errorf(trade.CodeInvalid, "Give at least one symbol, e.g. s:1,s:2.")
	}
	return out, nil
}

// parseQuantity reads a share count; allowZero accepts an empty or zero quantity (sell all).
func parseQuantity(s string, allowZero bool) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		if allowZero {
			return 0, nil
		}
		return 0, trade.Errorf(trade.CodeInvalid, "Quantity is required.")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, trade.Errorf(trade.CodeInvalid, "Quantity is more than the maximum of %d shares per order.", trade.MaxQuantity)
		}
		return 0, trade.Errorf(trade.CodeInvalid, "Quantity must be a whole number of shares, not %q.", truncate(s, 20))
	}
	if err := trade.ValidateQuantity(n, allowZero); err != nil {
		return 0, err
	}
	return n, nil
}

// orderData is the order confirmation page.
type orderData struct {
	Order trade.Order
	Total trade.Money
}

func (a *app) buy(q *req) error {
	sym := strings.TrimSpace(q.r.Form.Get("symbol"))
	if err := trade.ValidateSymbol(sym); err != nil {
		return err
	}
	qty, err := parseQuantity(q.r.Form.Get("quantity"), false)
	if err != nil {
		return err
	}
	ctx, err := q.keyed()
	if err != nil {
		return err
	}
	o, err := a.svc.Buy(ctx, q.sess.UserID, sym, qty)
	if err != nil {
		return err
	}
	a.render(q, http.StatusOK, "order", "Order", "", orderData{Order: o, Total: o.Total()})
	return nil
}

func (a *app) sell(q *req) error {
	raw := strings.TrimSpace(q.r.Form.Get("holdingID"))
	if raw == "" {
		return trade.Errorf(trade.CodeInvalid, "holdingID is required.")
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return trade.Errorf(trade.CodeInvalid, "holdingID must be a positive whole number, not %q.", truncate(raw, 20))
	}
	qty, err := parseQuantity(q.r.Form.Get("quantity"), true)
	if err != nil {
		return err
	}
	ctx, err := q.keyed()
	if err != nil {
		return err
	}
	o, err := a.svc.Sell(ctx, q.sess.UserID, id, qty)
	if err != nil {
		return err
	}
	a.render(q, http.StatusOK, "order", "Order", "", orderData{Order: o, Total: o.Total()})
	return nil
}

// registerForm is the registration page's values (never the passwords).
type registerForm struct {
	FullName, Address, Email, UserID, Money, CreditCard string
	FormErr                                             string
}

// DefaultOpenBalance pre-fills the registration form (DayTrader's default).
const DefaultOpenBalance = "10000"

func (a *app) showRegister(q *req) error {
	a.render(q, http.StatusOK, "register", "Register", "", registerForm{Money: DefaultOpenBalance})
	return nil
}

func (a *app) doRegister(q *req) error {
	f := q.r.Form
	form := registerForm{
		FullName:   strings.TrimSpace(f.Get("Full Name")),
		Address:    strings.TrimSpace(f.Get("snail mail")),
		Email:      strings.TrimSpace(f.Get("email")),
		UserID:     strings.TrimSpace(f.Get("user id")),
		Money:      strings.TrimSpace(f.Get("money")),
		CreditCard: strings.TrimSpace(f.Get("Credit Card Number")),
	}
	pw := f.Get("passwd")
	fail := func(err error) error {
		te := trade.AsError(err)
		if te == nil {
			return err
		}
		form.FormErr = te.Message
		a.render(q, statusOf(te.Code), "register", "Register", "", form)
		return nil
	}
	err := checkFields([][2]string{{"user id", form.UserID}, {"full name", form.FullName}, {"address", form.Address}, {"email", form.Email},
		{"credit card", form.CreditCard}})
	if err != nil {
		return fail(err)
	}
	if pw != f.Get("confirm passwd") {
		return fail(trade.Errorf(trade.CodeInvalid, "The password and its confirmation do not match."))
	}
	if form.Money == "" {
		return fail(trade.Errorf(trade.CodeInvalid, "Opening balance (money) is required."))
	}
	money, perr := trade.ParseMoney(form.Money)
	if perr != nil {
		return fail(trade.Errorf(trade.CodeInvalid, "Opening balance: %v.", perr))
	}
	rr := trade.RegisterRequest{UserID: form.UserID, Password: pw, FullName: form.FullName, Address: form.Address,
		Email: form.Email, CreditCard: form.CreditCard, OpenBalance: money}
	if err := trade.ValidateRegister(rr); err != nil {
		return fail(err)
	}
	ctx, err := q.keyed()
	if err != nil {
		return fail(err)
	}
	// registered and logged in, as DayTrader does after registering: the counters and last
	// login are the service's
	acct, err := trade.RegisterAndLogin(trade.WithClient(ctx, q.r.RemoteAddr), a.svc, rr)
	if err != nil {
		return fail(err)
	}
	a.startSession(q, acct)
	return a.renderHome(q, "Registration operation succeeded. Account "+strconv.FormatInt(acct.AccountID, 10)+" has been created.")
}

func (a *app) marketSummary(q *req) error {
	ms, err := a.svc.GetMarketSummary(q.r.Context())
	if err != nil {
		return err
	}
	a.render(q, http.StatusOK, "mksummary", "Market Summary", "", ms)
	return nil
}

// configPage is the config page's data: the settings and, when the access mode can be
// switched, the form's choices.
type configPage struct {
	Sections []ConfigSection
	Access   string
	Modes    []string
}

// configuration is what /trade/config and /trade/config.json show.
func (a *app) configuration() *Configuration {
	c := &Configuration{Web: ConfigWeb{OrdersCap: a.opts.OrdersLimit, SessionTTLSeconds: a.opts.SessionTTL.Seconds()}}
	if a.opts.Config != nil {
		c = a.opts.Config()
	}
	if c.Access == nil && a.opts.Access != nil {
		c.Access = &ConfigAccess{Mode: a.opts.Access.Mode(), Modes: a.opts.Access.Modes()}
	}
	return c
}

func (a *app) config(q *req) error { return a.renderConfig(q, http.StatusOK, "") }

func (a *app) renderConfig(q *req, status int, msg string) error {
	p := configPage{Sections: a.configuration().Sections()}
	if a.opts.Access != nil {
		p.Access, p.Modes = a.opts.Access.Mode(), a.opts.Access.Modes()
	}
	a.render(q, status, "config", "Configuration", msg, p)
	return nil
}

// configJSON is the configuration as JSON (Configuration's schema), for programs: the driver
// records it with the results of a run.
func (a *app) configJSON(q *req) error {
	q.w.Header().Set("Content-Type", "application/json")
	q.w.Header().Set("Cache-Control", "no-store")
	return json.NewEncoder(q.w).Encode(a.configuration())
}

// setAccess switches the access mode from the config page's form (field access).
func (a *app) setAccess(q *req) error {
	if a.opts.Access == nil {
		return &httpError{status: http.StatusMethodNotAllowed, msg: "This web tier's access mode is fixed; it cannot be switched here."}
	}
	mode := q.r.PostFormValue("access")
	if mode == "" {
		return &httpError{status: http.StatusBadRequest, msg: "Choose an access mode."}
	}
	if mode == a.opts.Access.Mode() {
		return a.renderConfig(q, http.StatusOK, "The access mode is already "+mode+".")
	}
	if err := a.opts.Access.Set(mode); err != nil {
		// through the per-client limiter: 3,000 refused switches with a 60 KB mode wrote 1 MB
		a.logFault(q.r, slog.LevelWarn, "web: access mode switch refused", "mode", truncate(mode, 40), "err", truncate(err.Error(), 200))
		return &httpError{status: http.StatusBadRequest, msg: "The access mode was not changed: " + truncate(err.Error(), 300)}
	}
	a.log.Info("web: access mode switched", "mode", mode)
	return a.renderConfig(q, http.StatusOK, "Access mode switched to "+mode+".")
}

// percent is num/den as a percentage with two decimals, in exact integer arithmetic.
func percent(num, den trade.Money) string {
	if den == 0 {
		return "0.00"
	}
	return trade.MarketSummary{TSIA: den + num, OpenTSIA: den}.GainPercent()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
