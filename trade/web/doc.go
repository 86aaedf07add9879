// Package web is the StockTrader web application: server-rendered HTML pages over a
// trade.Service, with signed-cookie sessions. The same handlers answer two URL contracts:
// clean routes under /trade/ (the primary UI) and the Trade/DayTrader contract under
// /daytrader/ (app?action=…, register.jsp, rest/quotes), so DayTrader's scripts run unchanged.
//
// Routes under /trade/: GET login, home, account, portfolio, quotes?symbols=, marketsummary,
// config (public), register; POST login, register, logout, account (profile update), buy
// (symbol, quantity), sell (holdingID, quantity; empty = all). POSTs carry the session's form
// token (field csrf). Under /daytrader/: app?action= login, logout, register, home, account,
// portfolio, quotes, mksummary, buy, sell, update_profile (GET or POST), register.jsp, and the
// JSON rest/quotes/{symbols} (GET) and rest/quotes (POST, field symbols).
// DayTrader's JSF pages answer under /daytrader/*.faces (jsf.go): welcome, tradehome, quote,
// portfolio, account and register, with a signed javax.faces.ViewState on every form.
//
// The package never talks SQL: everything goes through trade.Service, so the pages cannot tell an
// in-process service from a remote one.
//
// The package comment lives in this file, whose name sorts first, so that go doc shows it as
// the synopsis rather than the version line templ writes above the generated pages_templ.go's
// package clause.
package web
