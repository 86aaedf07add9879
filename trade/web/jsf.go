package web

import (
	"crypto/hmac"
	"crypto/rand"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tradebench/tradebench/trade"
)

// The JSF contract: Apache DayTrader's JavaServer Faces pages at /daytrader/*.faces, with the
// form ids, field names and page markers of DayTrader's JMeter plans, so those plans run here
// unchanged. The pages are the DayTrader contract's pages (the same handlers, the same
// trade.Service calls) rendered by the templates/jsf_*.html set; what is JSF's own is the form
// encoding, translated here:
//
//	page             form           postback
//	welcome.faces    login          login:uid, login:password → log in ("Ready to Trade")
//	tradehome.faces  tradeHome      tradeHome:_idcl=tradeHome:logoff → log out; tradeHome:submit=quotes → quotes
//	quote.faces      quotes         quotes:symbols (+ quotes:submit2) → list; quotes:quotes:K:buy with
//	                                quotes:quotes:K:quantity → buy the K-th listed symbol
//	portfolio.faces  portfolio      portfolio:_idcl=portfolio:holdings:K:sell → sell the K-th listed holding
//	account.faces    updateProfile  updateProfile:uid, fullname, password, cpassword, address, ccn, email
//	register.faces   register       register:fullname, address, email, uid, password, cpassword, money, ccn
//
// Every form post carries FORM_SUBMIT=1 and every page carries the hidden field
// javax.faces.ViewState, which clients echo. Here the view state is an anti-forgery token: an
// HMAC, under the session secret, of what the page was rendered for — the login session, or for
// a visitor not logged in the visitor cookie — and the time it was issued. Web processes that share
// the session secret (TRADEBENCH_SESSION_SECRET) accept each other's tokens, so a balanced web
// tier needs nothing more. A postback without it is refused with 400; with one that was changed,
// has expired or belongs to another session, 403; either way nothing changes. A POST with no
// fields at all is not a postback (JSF treats it as a first visit; DayTrader's plan "pings"
// welcome.faces that way) and shows the page.

// jsfViewStateField is the form field of the view state.
const jsfViewStateField = "javax.faces.ViewState"

// visitorCookie binds the view state of pages shown before login (login, register). It is a
// random value with no meaning on the server; a browser session cookie.
const visitorCookie = "tb_visitor"

// jsfState is a JSF request's own state.
type jsfState struct {
	visitor string // the visitor cookie's value
	form    string // the page's form id
}

// jsfPage is one *.faces page.
type jsfPage struct {
	form   string  // the form id: the prefix of its field names
	show   handler // GET, and a POST that is not a postback
	post   handler // the postback, after the view state and login checks
	public bool    // shown without a login
}

func (a *app) jsfPages() map[string]jsfPage {
	return map[string]jsfPage{
		"/daytrader/welcome.faces":   {form: "login", show: a.showLogin, post: a.jsfLogin, public: true},
		"/daytrader/tradehome.faces": {form: "tradeHome", show: a.home, post: a.jsfCommand(nil)},
		"/daytrader/quote.faces":     {form: "quotes", show: a.quotes, post: a.jsfQuotes},
		"/daytrader/portfolio.faces": {form: "portfolio", show: a.portfolio, post: a.jsfCommand(a.jsfSell)},
		"/daytrader/account.faces":   {form: "updateProfile", show: a.account, post: a.jsfUpdateProfile},
		"/daytrader/register.faces":  {form: "register", show: a.showRegister, post: a.jsfRegister, public: true},
	}
}

// serveJSF answers one *.faces request.
func (a *app) serveJSF(w http.ResponseWriter, r *http.Request, pg jsfPage) {
	if !a.dtMethodAllowed(w, r) {
		return
	}
	a.serve(w, r, true, func(q *req) error {
		q.jsf = &jsfState{visitor: a.visitor(w, r), form: pg.form}
		if r.Method != http.MethodPost || len(r.PostForm) == 0 {
			if !pg.public && !q.authed {
				return errLoginRequired
			}
			return pg.show(q)
		}
		if r.PostForm.Get(pg.form+"_SUBMIT") != "1" {
			return &httpError{status: http.StatusBadRequest,
				msg: fmt.Sprintf("This page's form %q was not submitted (the field %s_SUBMIT=1 is missing).", pg.form, pg.form)}
		}
		if !pg.public && !q.authed {
			return errLoginRequired // nothing to do for a visitor not logged in: the login page
		}
		vs := r.PostForm.Get(jsfViewStateField)
		if vs == "" {
			return &httpError{status: http.StatusBadRequest,
				msg: "The form carries no " + jsfViewStateField + ". Reload the page and submit the form again."}
		}
		if !a.checkViewState(q, vs) {
			return &httpError{status: http.StatusForbidden,
				msg: "The form's " + jsfViewStateField + " is not valid for this session: it has expired, was changed, or comes from another " +
					"session. Reload the page and try again."}
		}
		return pg.post(q)
	})
}

// visitor returns the visitor cookie's value, setting a new one when the request has none.
func (a *app) visitor(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(visitorCookie); err == nil && len(c.Value) == 22 {
		if b, err := b64.DecodeString(c.Value); err == nil && len(b) == 16 {
			return c.Value
		}
	}
	var n [16]byte
	rand.Read(n[:])
	v := b64.EncodeToString(n[:])
	http.SetCookie(w, &http.Cookie{Name: visitorCookie, Value: v, Path: "/daytrader/",
		HttpOnly: true, Secure: a.sess.secure, SameSite: http.SameSiteLaxMode})
	return v
}

// viewStateBinding is what a view state is bound to: the login session (its nonce changes
// with every login), or the visitor cookie before login.
func viewStateBinding(q *req) string {
	if q.authed {
		return "s:" + q.sess.Nonce + ":" + q.sess.UserID
	}
	return "v:" + q.jsf.visitor
}

// viewState issues the token a page rendered for q carries: "vs1.<issued, base 36>.<mac>".
func (a *app) viewState(q *req) string {
	issued := strconv.FormatInt(a.opts.Clock().Unix(), 36)
	return "vs1." + issued + "." + a.viewStateMAC(viewStateBinding(q), issued)
}

func (a *app) viewStateMAC(binding, issued string) string {
	return b64.EncodeToString(a.sess.mac("viewstate:" + binding + ":" + issued)[:18])
}

// checkViewState accepts a token issued for q's session (or visitor) within the session
// lifetime. Its MAC is compared in constant time (hmac.Equal), which no behavioural test can
// check: a plain comparison (bytes.Equal, ==) answers the same for every input and differs only
// in timing, so that mutant survives every test. Keep it; review, not a test, guards it.
func (a *app) checkViewState(q *req, tok string) bool {
	parts := strings.Split(tok, ".")
	if len(tok) > 128 || len(parts) != 3 || parts[0] != "vs1" {
		return false
	}
	sec, err := strconv.ParseInt(parts[1], 36, 64)
	if err != nil {
		return false
	}
	age := a.opts.Clock().Sub(time.Unix(sec, 0))
	if age < -time.Minute || age > a.opts.SessionTTL {
		return false
	}
	want := a.viewStateMAC(viewStateBinding(q), parts[1])
	return hmac.Equal([]byte(parts[2]), []byte(want))
}

// useForm replaces the request's form with the DayTrader servlet contract's fields, so the
// shared handlers read a JSF post as they read app?action=…; pairs are servlet name, JSF name.
func useForm(q *req, pairs ...string) {
	f := url.Values{}
	for i := 0; i+1 < len(pairs); i += 2 {
		if v, ok := q.r.PostForm[pairs[i+1]]; ok {
			f[pairs[i]] = v
		}
	}
	q.r.Form = f
}

func (a *app) jsfLogin(q *req) error {
	useForm(q, "uid", "login:uid", "passwd", "login:password")
	return a.doLogin(q)
}

func (a *app) jsfRegister(q *req) error {
	useForm(q, "Full Name", "register:fullname", "snail mail", "register:address", "email", "register:email",
		"user id", "register:uid", "passwd", "register:password", "confirm passwd", "register:cpassword",
		"money", "register:money", "Credit Card Number", "register:ccn")
	return a.doRegister(q)
}

func (a *app) jsfUpdateProfile(q *req) error {
	if idcl := q.r.PostForm.Get("updateProfile:_idcl"); idcl != "" {
		return a.jsfCommand(nil)(q)
	}
	useForm(q, "userID", "updateProfile:uid", "fullname", "updateProfile:fullname", "password", "updateProfile:password",
		"cpassword", "updateProfile:cpassword", "address", "updateProfile:address", "creditcard", "updateProfile:ccn",
		"email", "updateProfile:email")
	return a.updateProfile(q)
}

// jsfCommand handles the command links and buttons every logged-in page shares — FORM:_idcl =
// FORM:logoff, and the quotes box (FORM:symbols with FORM:submit or FORM:submit2 = quotes) — and
// hands any other FORM:_idcl to rows (nil: there is none, and any other command is unknown).
func (a *app) jsfCommand(rows func(q *req, form, idcl string) error) handler {
	return func(q *req) error {
		form, f := q.jsf.form, q.r.PostForm
		switch idcl := f.Get(form + ":_idcl"); {
		case idcl == form+":logoff":
			return a.doLogout(q)
		case idcl != "" && rows != nil:
			return rows(q, form, idcl)
		case idcl != "":
			return trade.Errorf(trade.CodeInvalid, "Unknown command %q on this page.", truncate(idcl, 60))
		}
		if f.Get(form+":submit") == "quotes" || f.Get(form+":submit2") == "quotes" {
			useForm(q, "symbols", form+":symbols")
			return a.quotes(q)
		}
		return trade.Errorf(trade.CodeInvalid, "The form names no command (%s:_idcl) and no button.", form)
	}
}

// rowIndex reads K from "prefix:K:suffix" (e.g. portfolio:holdings:2:sell), checking it against
// the n rows the page lists.
func rowIndex(s, prefix, suffix string, n int) (int, error) {
	k, ok := strings.CutPrefix(s, prefix)
	if ok {
		k, ok = strings.CutSuffix(k, suffix)
	}
	if !ok {
		return 0, trade.Errorf(trade.CodeInvalid, "Unknown command %q on this page.", truncate(s, 60))
	}
	i, err := strconv.Atoi(k)
	if err != nil || i < 0 {
		return 0, trade.Errorf(trade.CodeInvalid, "Unknown command %q on this page.", truncate(s, 60))
	}
	if i >= n {
		return 0, trade.Errorf(trade.CodeInvalid, "Row %d is not on the page: it lists %d.", i, n)
	}
	return i, nil
}

// jsfSell sells the K-th holding of the portfolio page, which lists the holdings in the order
// GetHoldings returns them. The index names the row as the page lists it now: a holding sold or
// bought in another window since the page was shown moves the rows, as in DayTrader.
func (a *app) jsfSell(q *req, form, idcl string) error {
	hs, err := a.svc.GetHoldings(q.r.Context(), q.sess.UserID)
	if err != nil {
		return a.sessionUserErr(q, err)
	}
	i, err := rowIndex(idcl, form+":holdings:", ":sell", len(hs))
	if err != nil {
		return err
	}
	q.r.Form = url.Values{"holdingID": {strconv.FormatInt(hs[i].HoldingID, 10)}}
	return a.sell(q)
}

// jsfQuotes lists quotes or, with a quotes:quotes:K:buy button, buys the K-th listed symbol.
func (a *app) jsfQuotes(q *req) error {
	f := q.r.PostForm
	buy := ""
	for k := range f {
		if strings.HasPrefix(k, "quotes:quotes:") && strings.HasSuffix(k, ":buy") {
			if buy != "" {
				return trade.Errorf(trade.CodeInvalid, "More than one buy button was submitted.")
			}
			buy = k
		}
	}
	if buy == "" {
		if f.Get("quotes:_idcl") != "" {
			return a.jsfCommand(nil)(q)
		}
		useForm(q, "symbols", "quotes:symbols")
		return a.quotes(q)
	}
	raw := strings.TrimSpace(f.Get("quotes:symbols"))
	if raw == "" {
		raw = DefaultSymbols
	}
	syms, err := parseSymbols(raw)
	if err != nil {
		return err
	}
	i, err := rowIndex(buy, "quotes:quotes:", ":buy", len(syms))
	if err != nil {
		return err
	}
	q.r.Form = url.Values{"symbol": {syms[i]}, "quantity": f["quotes:quotes:"+strconv.Itoa(i)+":quantity"]}
	return a.buy(q)
}

// jsfPageNames are the pages the JSF set renders (templates/jsf_NAME.html).
var jsfPageNames = []string{"login", "home", "account", "portfolio", "quotes", "order", "register", "error"}

// jsfTitles are DayTrader's JSF page titles; the plan checks "DayTrader Login" and "DayTrader Quotes".
var jsfTitles = map[string]string{
	"login": "DayTrader Login", "home": "DayTrader Home", "account": "DayTrader Account",
	"portfolio": "DayTrader Portfolio", "quotes": "DayTrader Quotes", "order": "DayTrader Order",
	"register": "DayTrader Registration", "error": "DayTrader Error",
}

// jsfForms is each page's form id.
var jsfForms = map[string]string{
	"login": "login", "home": "tradeHome", "account": "updateProfile", "portfolio": "portfolio",
	"quotes": "quotes", "order": "quotes", "register": "register", "error": "tradeHome",
}

// jsfActions is where each page's form posts.
var jsfActions = map[string]string{
	"login": "welcome.faces", "home": "tradehome.faces", "account": "account.faces", "portfolio": "portfolio.faces",
	"quotes": "quote.faces", "order": "quote.faces", "register": "register.faces", "error": "tradehome.faces",
}

// parseJSFPages adds the JSF page set to ps, as "jsf_NAME", each inside jsf_layout.html.
func parseJSFPages(ps *pageSet) error {
	base, err := template.New("jsf_layout.html").Funcs(funcs).ParseFS(templateFS, "templates/jsf_layout.html")
	if err != nil {
		return fmt.Errorf("web: parse jsf layout: %w", err)
	}
	for _, n := range jsfPageNames {
		t, err := base.Clone()
		if err == nil {
			t, err = t.ParseFS(templateFS, "templates/jsf_"+n+".html")
		}
		if err != nil {
			return fmt.Errorf("web: parse jsf page %s: %w", n, err)
		}
		ps.t["jsf_"+n] = t
	}
	return nil
}

// jsfView prepares v for a JSF page and returns its template's name. A form on a page not
// logged in (login, register, an error) posts to the page the visitor can use.
func (a *app) jsfView(q *req, v *view, page string) string {
	v.Title = jsfTitles[page]
	v.viewState = a.viewState(q)
	v.jsfForm, v.jsfAction = jsfForms[page], jsfActions[page]
	if !q.authed && page == "error" {
		v.jsfForm, v.jsfAction = "login", "welcome.faces"
	}
	return "jsf_" + page
}

// JSFForm is the page's form id; JSFAction where it posts.
func (v *view) JSFForm() string   { return v.jsfForm }
func (v *view) JSFAction() string { return v.jsfAction }

// ViewStateInput is the hidden view state field, in exactly the markup DayTrader's JSF pages
// (Apache MyFaces) render and its JMeter plan extracts with a regex. The token is base64url and
// digits, safe in an attribute as is.
func (v *view) ViewStateInput() template.HTML {
	return template.HTML(`<input type="hidden" name="` + jsfViewStateField + `" id="j_id__v_0:javax.faces.ViewState:1" value="` +
		template.HTMLEscapeString(v.viewState) + `"/>`)
}
