package web

import (
	"net/http"
	"strings"
)

// The web tier's requests are counted by route (the metrics endpoint's route label): a /trade/
// page's path, a DayTrader servlet action ("/daytrader/app?action=buy"), a JSF page, the
// DayTrader REST quotes, or "other". The set is fixed here, never taken from the request, so
// random URLs cannot add series.

var (
	tradePaths = []string{"/trade/login", "/trade/logout", "/trade/register", "/trade/home", "/trade/account",
		"/trade/portfolio", "/trade/quotes", "/trade/buy", "/trade/sell", "/trade/marketsummary",
		"/trade/config", "/trade/config.json", "/trade/stream/quotes", "/trade/stream/summary", "/trade/static/live.js",
		"/trade/static/style.css", "/trade/static/jsf.css"}
	dayTraderActionNames = []string{"", "login", "logout", "register", "home", "account", "portfolio",
		"quotes", "mksummary", "buy", "sell", "update_profile"}
	jsfPaths = []string{"/daytrader/welcome.faces", "/daytrader/tradehome.faces", "/daytrader/quote.faces",
		"/daytrader/portfolio.faces", "/daytrader/account.faces", "/daytrader/register.faces"}
)

const (
	routeRoot          = "/"
	routeDayTraderApp  = "/daytrader/app?action="
	routeRegisterJSP   = "/daytrader/register.jsp"
	routeRESTQuotes    = "/daytrader/rest/quotes"
	routeOther         = "other"
	routeUnknownAction = routeDayTraderApp + "(unknown)"
)

// pathLabels and actionLabels map every page path and DayTrader action to its label, built once
// so naming a route allocates nothing.
var pathLabels, actionLabels = func() (map[string]string, map[string]string) {
	paths, actions := map[string]string{}, map[string]string{}
	for _, p := range tradePaths {
		paths[p] = p
	}
	for _, p := range jsfPaths {
		paths[p] = p
	}
	for _, a := range dayTraderActionNames {
		actions[a] = routeDayTraderApp + a
	}
	return paths, actions
}()

// Routes lists every route Route can return.
func Routes() []string {
	out := []string{routeRoot, routeRegisterJSP, routeRESTQuotes, routeUnknownAction, routeOther}
	out = append(out, tradePaths...)
	out = append(out, jsfPaths...)
	for _, a := range dayTraderActionNames {
		out = append(out, routeDayTraderApp+a)
	}
	return out
}

// Route names the route of a request the web tier has served (it reads the DayTrader action
// from the form the handler parsed; it parses nothing itself). It returns one of Routes.
func Route(r *http.Request) string {
	p := r.URL.Path
	switch {
	case p == "/" || p == "/trade" || p == "/trade/":
		return routeRoot
	case p == "/daytrader" || p == "/daytrader/" || p == "/daytrader/app" || p == "/daytrader/welcome.jsp":
		var action string
		if r.Form != nil {
			action = r.Form.Get("action")
		}
		if l, ok := actionLabels[action]; ok {
			return l
		}
		return routeUnknownAction
	case p == routeRegisterJSP:
		return routeRegisterJSP
	case p == routeRESTQuotes || strings.HasPrefix(p, routeRESTQuotes+"/"):
		return routeRESTQuotes
	}
	if l, ok := pathLabels[p]; ok {
		return l
	}
	return routeOther
}
