package web

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"

	"github.com/tradebench/tradebench/trade"
)

// The DayTrader contract: /daytrader/app?action=… with DayTrader's field names and page markers,
// GET and POST alike (its JMeter plans and the original papers' LoadRunner flows use both).
//
// Unlike the /trade/ forms, these requests carry no per-session form token: DayTrader's scripts
// post bare forms and even place orders with GET links (app?action=sell&holdingID=N), so a token
// would break every existing script. What protects a browser user instead: SameSite=Lax cookies
// (a cross-site POST carries no session), net/http's cross-origin check on POSTs (Sec-Fetch-Site /
// Origin), and a refusal of state-changing GETs a browser marks as not from this origin
// (sameOrigin). Scripts send neither header and pass.

// dtRoute is one DayTrader action.
type dtRoute struct {
	h        handler
	public   bool // needs no session
	mutating bool // changes state: refused when a browser says the request came from another site
}

func (a *app) dayTraderActions() map[string]dtRoute {
	return map[string]dtRoute{
		"":               {h: a.showLogin, public: true},
		"login":          {h: a.doLogin, public: true, mutating: true},
		"logout":         {h: a.doLogout, public: true, mutating: true},
		"register":       {h: a.doRegister, public: true, mutating: true},
		"home":           {h: a.home},
		"account":        {h: a.account},
		"portfolio":      {h: a.portfolio},
		"quotes":         {h: a.quotes},
		"mksummary":      {h: a.marketSummary},
		"buy":            {h: a.buy, mutating: true},
		"sell":           {h: a.sell, mutating: true},
		"update_profile": {h: a.updateProfile, mutating: true},
	}
}

// dtMethodAllowed answers a method the DayTrader contracts (servlet and JSF) do not take with
// 405 and reports whether the request may go on.
func (a *app) dtMethodAllowed(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodPost {
		return true
	}
	w.Header().Set("Allow", "GET, HEAD, POST")
	a.serve(w, r, true, func(q *req) error {
		return &httpError{status: http.StatusMethodNotAllowed, msg: "Use GET or POST."}
	})
	return false
}

func (a *app) serveDayTrader(w http.ResponseWriter, r *http.Request) {
	if !a.dtMethodAllowed(w, r) {
		return
	}
	a.serve(w, r, true, func(q *req) error {
		action := q.r.Form.Get("action")
		rt, ok := a.dtAction[action]
		if !ok {
			return trade.Errorf(trade.CodeInvalid, "Unknown action %q.", truncate(action, 40))
		}
		if rt.mutating && r.Method == http.MethodHead {
			// HEAD is a safe method: a link checker or prefetcher must not place an order
			w.Header().Set("Allow", "GET, POST")
			return &httpError{status: http.StatusMethodNotAllowed, msg: "Action " + action + " changes state: use GET or POST, not HEAD."}
		}
		if rt.mutating && !sameOrigin(r) {
			return &httpError{status: http.StatusForbidden, msg: "Requests from other sites may not change anything here."}
		}
		if !rt.public && !q.authed {
			return errLoginRequired
		}
		return rt.h(q)
	})
}

// sameOrigin reports whether a browser says r came from this origin: Sec-Fetch-Site absent (not
// a browser: DayTrader's JMeter plan, curl), "same-origin", or "none" (typed in the address
// bar, a bookmark). "same-site" is refused with "cross-site": any other port on the same host
// is the same site, so a page there could place orders with a GET link.
func sameOrigin(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
		return true
	}
	return false
}

// jsonQuote is a quote in DayTrader's REST shape; amounts are exact decimal JSON numbers.
type jsonQuote struct {
	Symbol      string      `json:"symbol"`
	CompanyName string      `json:"companyName"`
	Price       json.Number `json:"price"`
	Open        json.Number `json:"open"`
	Low         json.Number `json:"low"`
	High        json.Number `json:"high"`
	Change      json.Number `json:"change"`
	Volume      int64       `json:"volume"`
}

func num(m trade.Money) json.Number { return json.Number(m.String()) }

// restQuotes answers GET /daytrader/rest/quotes/s:1,s:2 and POST /daytrader/rest/quotes
// (form field symbols) with a JSON array of quotes. It is public, as in DayTrader.
func (a *app) restQuotes(w http.ResponseWriter, r *http.Request) {
	writeJSON := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	fail := func(status int, code trade.Code, msg string) {
		writeJSON(status, &trade.Error{Code: code, Message: msg})
	}
	var raw string
	switch {
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		raw = strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, "/daytrader/rest/quotes"), "/")
	case r.Method == http.MethodPost && r.URL.Path == "/daytrader/rest/quotes":
		if err := a.csrf.Check(r); err != nil {
			fail(http.StatusForbidden, trade.CodeForbidden, "cross-site request refused")
			return
		}
		if err := r.ParseForm(); err != nil {
			he := formError(err).(*httpError)
			fail(he.status, trade.CodeInvalid, he.msg)
			return
		}
		raw = r.PostForm.Get("symbols")
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		fail(http.StatusMethodNotAllowed, trade.CodeInvalid,
			"use GET /daytrader/rest/quotes/SYMBOLS or POST /daytrader/rest/quotes with form field symbols")
		return
	}
	syms, err := parseSymbols(raw)
	if err != nil {
		fail(http.StatusBadRequest, trade.CodeInvalid, err.Error())
		return
	}
	qs, err := a.svc.GetQuotes(r.Context(), syms)
	if err != nil {
		if te := trade.AsError(err); te != nil {
			fail(statusOf(te.Code), te.Code, te.Message)
			return
		}
		if r.Context().Err() == nil {
			a.logFault(r, slog.LevelError, "web: system fault", "err", err)
		}
		writeJSON(http.StatusInternalServerError, map[string]string{"code": "internal", "message": "server error; it has been logged"})
		return
	}
	out := make([]jsonQuote, len(qs))
	for i, q := range qs {
		out[i] = jsonQuote{Symbol: q.Symbol, CompanyName: q.CompanyName, Price: num(q.Price), Open: num(q.Open),
			Low: num(q.Low), High: num(q.High), Change: num(q.Change), Volume: q.Volume}
	}
	writeJSON(http.StatusOK, out)
}
