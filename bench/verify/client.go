package verify

import (
	"context"
	"crypto/tls"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tradebench/tradebench/internal/dsn"
	"github.com/tradebench/tradebench/internal/httpc"
	"github.com/tradebench/tradebench/internal/logsafe"
	"github.com/tradebench/tradebench/report"
)

// The target is a stranger: verify talks to it through the driver's own HTTP client
// (internal/httpc), with its bounds — the response header's size and line count, a small
// cookie jar that keeps what browsers keep, a body bound (maxBody) and a memory budget for the
// bodies of every user at once, redirects only on the target's own origin and at most
// maxRedirects times — each request bounded by Config.Timeout and the whole verification by
// Config.Deadline; what is kept of an answer for the evidence is cut short and escaped
// (internal/logsafe) before anything prints it.
const (
	maxBody      = 4 << 20
	bodyBudget   = 64 << 20
	maxRedirects = 5
	excerptLen   = 300
)

// user is one visitor of the target: its own connection and cookies, as a browser with
// JavaScript off.
type user struct {
	v    *verifier
	c    *httpc.Client
	uid  string // the user id it registered (or "" before)
	pass string
}

// page is one answer: its status, its body (up to maxBody), and how it was asked for.
type page struct {
	req    string   // "GET /daytrader/app?action=home", a form's fields after it (passwords hidden)
	url    *url.URL // where the answer came from (after redirects): what its links are relative to
	status int
	body   string
	d      *doc // the parsed body, on first use
}

// doc is the page's parsed document.
func (p *page) doc() *doc {
	if p.d == nil {
		p.d = parse(p.body)
	}
	return p.d
}

// httpOptions are the client options of one verification: the driver's bounds.
func httpOptions(cfg Config) *httpc.Options {
	o := &httpc.Options{Timeout: cfg.Timeout, UserAgent: "tradebench-verify", Budget: httpc.NewBodyBudget(bodyBudget)}
	if cfg.Insecure {
		o.TLS = &tls.Config{InsecureSkipVerify: true} // the user asked for it (--insecure)
	}
	return o
}

func (v *verifier) newUser() *user { return &user{v: v, c: httpc.NewClient(v.hopt)} }

// close drops the user's connection.
func (u *user) close() { u.c.CloseConn() }

// get asks for path (with its query) on the target.
func (u *user) get(ctx context.Context, path string) (page, error) {
	return u.do(ctx, http.MethodGet, u.v.resolve(path), nil)
}

// post sends form to path as application/x-www-form-urlencoded.
func (u *user) post(ctx context.Context, path string, form url.Values) (page, error) {
	return u.do(ctx, http.MethodPost, u.v.resolve(path), form)
}

// resolve is a contract path ("/daytrader/app?action=home") on the target: below the target's
// path prefix when it has one (http://host/prefix).
func (v *verifier) resolve(path string) *url.URL {
	ref, err := url.Parse(path)
	if err != nil {
		ref = &url.URL{Path: "/"}
	}
	target := v.base.ResolveReference(ref)
	if v.base.Path != "" && v.base.Path != "/" && strings.HasPrefix(path, "/") {
		target.Path = strings.TrimSuffix(v.base.Path, "/") + ref.Path
	}
	return target
}

var formHeader = []byte("Content-Type: application/x-www-form-urlencoded\r\n")

// do sends one request and follows the redirects the driver's policy follows (same origin):
// a 301, 302 or 303 as a GET without a body, a 307 or 308 as it was.
func (u *user) do(ctx context.Context, method string, target *url.URL, form url.Values) (page, error) {
	p := page{req: method + " " + target.RequestURI(), url: target}
	var body []byte
	if form != nil {
		body = []byte(form.Encode())
		p.req += " " + describeForm(form)
	}
	ep, err := httpc.ParseEndpoint(target)
	if err != nil {
		return p, err
	}
	for hop := 0; ; hop++ {
		req := &httpc.Request{Method: method, Target: []byte(target.RequestURI()), Body: body, KeepBody: true, MaxBody: maxBody}
		if body != nil {
			req.Header = formHeader
		}
		resp, err := u.c.Do(ctx, &ep, req)
		if err != nil {
			return p, err
		}
		p.status, p.body, p.d, p.url = resp.Status, string(resp.Body), nil, target
		u.c.ReleaseBody()
		if resp.Location == "" || resp.Status < 300 || resp.Status > 399 || resp.Status == 304 {
			return p, nil
		}
		next, err := target.Parse(resp.Location)
		if err != nil {
			return p, nil // the answer is the redirect itself
		}
		nep, err := httpc.ParseEndpoint(next)
		if err != nil || !u.v.hopt.Redirects.Follows(&ep, &nep) {
			return p, nil // another origin: the answer is the redirect itself
		}
		if hop >= maxRedirects {
			return p, fmt.Errorf("more than %d redirects", maxRedirects)
		}
		if resp.Status != 307 && resp.Status != 308 {
			method, body = http.MethodGet, nil
		}
		target, ep = next, nep
	}
}

// describeForm is a form as the evidence shows it: the fields in order, passwords hidden,
// long values cut.
func describeForm(f url.Values) string {
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(f)) {
		if i > 0 {
			b.WriteByte('&')
		}
		v := f.Get(k)
		if strings.Contains(strings.ToLower(k), "passw") || strings.Contains(strings.ToLower(k), "passwd") {
			v = "xxxxx"
		} else if len(v) > 40 {
			v = v[:40] + "…(" + strconv.Itoa(len(v)) + " chars)"
		}
		b.WriteString(k + "=" + v)
	}
	return clean(b.String(), 400)
}

// session is a copy of the user's cookies, to replay later from another visitor.
func (u *user) session() httpc.Jar { return u.c.Jar.Clone() }

// withSession is a new visitor who sends exactly these cookies (an old session's, say).
func (v *verifier) withSession(j httpc.Jar) *user {
	u := v.newUser()
	u.c.Jar = j.Clone()
	return u
}

// excerpt is the start of what a page shows, for the evidence.
func (p *page) excerpt() string { return clean(p.doc().text(), excerptLen) }

// clean is an untrusted string as evidence keeps it: on one line, escaped for a terminal
// (internal/logsafe), cut to max bytes on a character boundary.
func clean(s string, max int) string {
	s = logsafe.Terminal(strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || r == '\r' {
			return ' '
		}
		return r
	}, s))
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// evidence is a page as a check's evidence: the request, the status, an excerpt.
func (p *page) evidence(expected, got string) report.Evidence {
	return report.Evidence{Request: dsn.Redact(p.req), Status: p.status, Excerpt: p.excerpt(),
		Expected: expected, Got: clean(got, 400)}
}
