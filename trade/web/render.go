package web

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/tradebench/tradebench/trade"
)

//go:embed templates/*.html
var templateFS embed.FS

// pageNames are the templates in templates/, each rendered inside layout.html.
var pageNames = []string{"login", "home", "account", "portfolio", "quotes", "order", "register", "mksummary", "config", "error"}

type pageSet struct{ t map[string]*template.Template }

var funcs = template.FuncMap{
	"money":  FormatMoney,
	"updown": updown,
	"date":   formatDate,
	"sub":    func(a, b trade.Money) trade.Money { return a - b },
	"args":   func(v *view, d any) viewArgs { return viewArgs{V: v, D: d} },
}

// viewArgs passes the page's view along with a part of its data to a shared sub-template.
type viewArgs struct {
	V *view
	D any
}

func parsePages() (*pageSet, error) {
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("web: parse layout: %w", err)
	}
	ps := &pageSet{t: map[string]*template.Template{}}
	for _, n := range pageNames {
		t, err := base.Clone()
		if err == nil {
			t, err = t.ParseFS(templateFS, "templates/"+n+".html")
		}
		if err != nil {
			return nil, fmt.Errorf("web: parse page %s: %w", n, err)
		}
		ps.t[n] = t
	}
	if err := parseJSFPages(ps); err != nil {
		return nil, err
	}
	return ps, nil
}

// view is what every template gets: the page's data plus the contract's brand and links.
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
}

// dtURLs and tradeURLs are the links of each contract. DayTrader's are relative to /daytrader/.
var dtURLs = map[string]string{
	"login": "app", "home": "app?action=home", "account": "app?action=account",
	"portfolio": "app?action=portfolio", "quotes": "app?action=quotes&symbols=" + DefaultSymbols,
	"mksummary": "app?action=mksummary", "register": "register.jsp", "config": "/trade/config",
	"form": "app", "logout": "app?action=logout",
}

var tradeURLs = map[string]string{
	"login": "/trade/login", "home": "/trade/home", "account": "/trade/account",
	"portfolio": "/trade/portfolio", "quotes": "/trade/quotes", "mksummary": "/trade/marketsummary",
	"register": "/trade/register", "config": "/trade/config", "logout": "/trade/logout",
	"buy": "/trade/buy", "sell": "/trade/sell",
}

// URL returns the link or form target named name in this page's contract. The links are
// constants of this package, so they are marked safe: html/template would otherwise read the
// DayTrader quotes link's "symbols=s:0" as a URL scheme and replace the link with #ZgotmplZ.
func (v *view) URL(name string) template.URL {
	if v.DT {
		if u, ok := dtURLs[name]; ok {
			return template.URL(u)
		}
		return "app"
	}
	if u, ok := tradeURLs[name]; ok {
		return template.URL(u)
	}
	return "/trade/home"
}

// QuoteURL links to the quotes page of one symbol.
func (v *view) QuoteURL(sym string) string {
	if v.DT {
		return "app?action=quotes&symbols=" + url.QueryEscape(sym)
	}
	return "/trade/quotes?symbols=" + url.QueryEscape(sym)
}

// Hidden is the hidden form fields a POST form needs: the DayTrader action, or the /trade/
// session's CSRF token. Both values are safe by construction (a constant, a base64url token).
func (v *view) Hidden(action string) template.HTML {
	if v.DT {
		return template.HTML(`<input type="hidden" name="action" value="` + template.HTMLEscapeString(action) + `">`)
	}
	if v.csrf == "" {
		return ""
	}
	return template.HTML(`<input type="hidden" name="csrf" value="` + template.HTMLEscapeString(v.csrf) + `">`)
}

// FormAction is where a form named action posts.
func (v *view) FormAction(action string) string {
	if v.DT {
		return "app"
	}
	return string(v.URL(action))
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
		v.csrf = a.sess.csrfToken(q.sess)
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
	name := page
	if q.jsf != nil {
		name = a.jsfView(q, v, page)
	}
	t := a.pages.t[name]
	if t == nil {
		panic("web: no template " + page)
	}
	if err := t.ExecuteTemplate(buf, "layout", v); err != nil {
		a.log.Error("web: render", "page", page, "err", err)
		if page != "error" {
			a.renderError(q, http.StatusInternalServerError, "Something went wrong on the server. The error has been logged; please try again.")
		} else {
			http.Error(q.w, "internal server error", http.StatusInternalServerError)
		}
		return
	}
	h := q.w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
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

// FormatMoney renders an amount as the pages show it: "$1,234.50" or "-$12.00".
func FormatMoney(m trade.Money) string {
	s := m.String()
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	whole, frac := s[:len(s)-3], s[len(s)-3:]
	var b []byte
	for i := range len(whole) {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, whole[i])
	}
	return sign + "$" + string(b) + frac
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

func formatDate(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}
