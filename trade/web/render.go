package web

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/a-h/templ"

	"github.com/tradebench/tradebench/trade"
)

//go:embed templates/*.html
var templateFS embed.FS

// The StockTrader pages are compiled templ components (pages.templ). html/template remains for
// the JSF pages (jsf.go) and for the config page's content, which the layout wraps; its data
// and markup change with the config page's own work, not with the pages' hot path.
type pageSet struct{ t map[string]*template.Template }

var funcs = template.FuncMap{
	"money": FormatMoney,
	"date":  formatDate,
	// the JSF layout's stylesheet link (static.go)
	"jsfStyleHref": func() template.URL { return jsfStyleHref },
}

// configTemplate names the config page's content template in the page set.
const configTemplate = "config"

func parsePages() (*pageSet, error) {
	t, err := template.New("config.html").Funcs(funcs).ParseFS(templateFS, "templates/config.html")
	if err != nil {
		return nil, fmt.Errorf("web: parse page config: %w", err)
	}
	ps := &pageSet{t: map[string]*template.Template{configTemplate: t}}
	if err := parseJSFPages(ps); err != nil {
		return nil, err
	}
	return ps, nil
}

// view is what every page gets: the page's data plus the contract's brand and links.
type view struct {
	Brand string
	Title string
	DT    bool   // DayTrader contract
	User  string // logged-in user id, "" if none
	Msg   string // an information message
	Err   string // an error message
	Data  any
	csrf  string
	// the JSF contract's form and view state (jsf.go)
	viewState, jsfForm, jsfAction string
	// keyPrefix and keys number the page's idempotency keys: one random prefix per page and
	// a counter per form, so a page of fifty buy forms draws randomness and allocates once.
	keyPrefix string
	keys      uint64
}

// dtURLs and tradeURLs are the links of each contract. DayTrader's are relative to /daytrader/.
var dtURLs = map[string]templ.SafeURL{
	"login": "app", "home": "app?action=home", "account": "app?action=account",
	"portfolio": "app?action=portfolio", "quotes": "app?action=quotes&symbols=" + DefaultSymbols,
	"mksummary": "app?action=mksummary", "register": "register.jsp", "config": "/trade/config",
	"form": "app", "logout": "app?action=logout",
}

var tradeURLs = map[string]templ.SafeURL{
	"login": "/trade/login", "home": "/trade/home", "account": "/trade/account",
	"portfolio": "/trade/portfolio", "quotes": "/trade/quotes", "mksummary": "/trade/marketsummary",
	"register": "/trade/register", "config": "/trade/config", "logout": "/trade/logout",
	"buy": "/trade/buy", "sell": "/trade/sell",
}

// href returns the link or form target named name in this page's contract. The links are
// constants of this package, so they are marked safe: a URL sanitizer would otherwise read the
// DayTrader quotes link's "symbols=s:0" as a URL scheme and replace the link.
func (v *view) href(name string) templ.SafeURL {
	if v.DT {
		if u, ok := dtURLs[name]; ok {
			return u
		}
		return "app"
	}
	if u, ok := tradeURLs[name]; ok {
		return u
	}
	return "/trade/home"
}

// formAction is where a form named action posts.
func (v *view) formAction(action string) templ.SafeURL {
	if v.DT {
		return "app"
	}
	return v.href(action)
}

// content is the templ component of a page's data. The config page's content is its
// html/template, executed into the layout.
func (a *app) content(v *view, page string) (templ.Component, error) {
	switch d := v.Data.(type) {
	case loginData:
		return loginPage(v, d), nil
	case homeData:
		return homePage(v, d), nil
	case accountData:
		return accountPage(v, d), nil
	case portfolioData:
		return portfolioPage(v, d), nil
	case quotesData:
		return quotesPage(v, d), nil
	case orderData:
		return orderPage(v, d), nil
	case registerForm:
		return registerPage(v, d), nil
	case trade.MarketSummary:
		return marketPage(v, d), nil
	case errorData:
		return errorPage(v, d), nil
	}
	t := a.pages.t[page]
	if t == nil {
		return nil, fmt.Errorf("web: no page %q for %T", page, v.Data)
	}
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		return t.ExecuteTemplate(w, "content", v)
	}), nil
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// render executes a page into a buffer first, so a template failure never sends half a page.
// msg is shown as an error when status is 4xx/5xx, else as information.
func (a *app) render(q *req, status int, page, title, msg string, data any) {
	v := &view{Brand: "tradebench", Title: title + " · tradebench", DT: q.dt, Data: data}
	if q.dt {
		v.Brand, v.Title = "DayTrader", "DayTrader: "+title
	}
	if q.authed {
		v.User = q.sess.UserID
		if !q.dt { // DayTrader's forms carry no token (daytrader.go): no MAC to compute
			v.csrf = a.sess.csrfToken(q.sess)
		}
	}
	if status >= 400 {
		v.Err = msg
	} else {
		v.Msg = msg
	}
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= 1<<20 {
			bufPool.Put(buf)
		}
	}()
	var err error
	if q.jsf != nil {
		name := a.jsfView(q, v, page)
		t := a.pages.t[name]
		if t == nil {
			panic("web: no template " + name)
		}
		err = t.ExecuteTemplate(buf, "layout", v)
	} else {
		var c templ.Component
		if c, err = a.content(v, page); err == nil {
			// not the request's context: rendering is CPU work on data already fetched, and a
			// client gone meanwhile must not be logged as a template failure
			err = layout(v, c).Render(context.Background(), buf)
		}
	}
	if err != nil {
		a.log.Error("web: render", "page", page, "err", err)
		if page != "error" {
			a.renderError(q, http.StatusInternalServerError, "Something went wrong on the server. The error has been logged; please try again.")
		} else {
			http.Error(q.w, "internal server error", http.StatusInternalServerError)
		}
		return
	}
	h := q.w.Header()
	h["Content-Type"] = hdrHTML
	h["Cache-Control"] = hdrNoStore
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	q.w.WriteHeader(status)
	if q.r.Method != http.MethodHead {
		q.w.Write(buf.Bytes())
	}
}

type loginData struct{ UID string }

func (a *app) renderLogin(q *req, status int, uid, msg string) {
	a.render(q, status, "login", "Login", msg, loginData{UID: uid})
}

type errorData struct {
	Status     int
	StatusText string
}

func (a *app) renderError(q *req, status int, msg string) {
	a.render(q, status, "error", http.StatusText(status), msg, errorData{Status: status, StatusText: http.StatusText(status)})
}

// FormatMoney renders an amount as the pages show it: "$1,234.50" or "-$12.00". It formats
// into a stack buffer and allocates only the result.
func FormatMoney(m trade.Money) string {
	var b [32]byte
	return string(appendMoney(b[:0], m))
}

// appendMoney appends FormatMoney's text of m to b.
func appendMoney(b []byte, m trade.Money) []byte {
	u := uint64(m)
	if m < 0 {
		b = append(b, '-')
		u = -u // two's complement: exact for every int64, the minimum included
	}
	b = append(b, '$')
	whole, cents := u/100, u%100
	var d [20]byte
	digits := strconv.AppendUint(d[:0], whole, 10)
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, c)
	}
	return append(b, '.', byte('0'+cents/10), byte('0'+cents%10))
}

// i64 is an integer as the pages show it.
func i64(n int64) string { return strconv.FormatInt(n, 10) }

// alertText is the account page's completed-orders alert.
func alertText(n int) string {
	if n > 1 {
		return "the following orders have completed."
	}
	return "the following order has completed."
}

// orderOutcome ends the order confirmation's sentence.
func orderOutcome(s trade.OrderStatus) string {
	if s == trade.StatusClosed || s == trade.StatusCompleted {
		return " and completed"
	}
	return " for processing"
}

// updown is the CSS class of a gain (up), loss (down) or nothing.
func updown(m trade.Money) string {
	switch {
	case m > 0:
		return "up"
	case m < 0:
		return "down"
	}
	return ""
}

// formatDate shows t as "2006-01-02 15:04:05" in local time. The account and portfolio pages
// show one or two per row, and time.Format interprets its layout on every call, so the
// fixed layout is written by hand (years outside 0–9999 go through Format, which they never
// do in practice).
func formatDate(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	t = t.Local()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.Format("2006-01-02 15:04:05")
	}
	hour, min, sec := t.Clock()
	var b [19]byte
	put := func(i, v, n int) {
		for j := i + n - 1; j >= i; j-- {
			b[j] = byte('0' + v%10)
			v /= 10
		}
	}
	put(0, year, 4)
	b[4] = '-'
	put(5, int(month), 2)
	b[7] = '-'
	put(8, day, 2)
	b[10] = ' '
	put(11, hour, 2)
	b[13] = ':'
	put(14, min, 2)
	b[16] = ':'
	put(17, sec, 2)
	return string(b[:])
}
