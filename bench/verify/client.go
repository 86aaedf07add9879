package verify

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tradebench/tradebench/internal/dsn"
	"github.com/tradebench/tradebench/report"
)

// The target is a stranger: every answer is read with a size bound (maxBody), every request with
// a time bound (Config.Timeout), redirects are followed only on the target's own origin and at
// most maxRedirects times, and what is kept of an answer for the evidence is cut short and
// stripped of control characters before anything prints it.
const (
	maxBody      = 4 << 20
	maxRedirects = 5
	excerptLen   = 300
)

// user is one visitor of the target: its own cookies, as a browser with JavaScript off.
type user struct {
	v    *verifier
	hc   *http.Client
	jar  *cookiejar.Jar
	uid  string // the user id it registered (or "" before)
	pass string
}

// page is one answer: its status, its body (up to maxBody), and how it was asked for.
type page struct {
	req    string // "GET /daytrader/app?action=home", a form's fields after it (passwords hidden)
	status int
	body   string
	ctype  string
}

func (v *verifier) newUser() *user {
	jar, _ := cookiejar.New(nil)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 2
	tr.ResponseHeaderTimeout = v.cfg.Timeout
	if v.cfg.Insecure {
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} // the user asked for it (--insecure)
	}
	u := &user{v: v, jar: jar}
	u.hc = &http.Client{Jar: jar, Timeout: v.cfg.Timeout, Transport: tr,
		CheckRedirect: func(r *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return fmt.Errorf("more than %d redirects", maxRedirects)
			}
			if r.URL.Scheme != v.base.Scheme || r.URL.Host != v.base.Host {
				return http.ErrUseLastResponse // another origin: the answer is the redirect itself
			}
			return nil
		}}
	return u
}

// close drops the user's idle connections.
func (u *user) close() { u.hc.CloseIdleConnections() }

// get asks for path (with its query) on the target.
func (u *user) get(ctx context.Context, path string) (page, error) {
	return u.do(ctx, http.MethodGet, path, nil)
}

// post sends form to path as application/x-www-form-urlencoded.
func (u *user) post(ctx context.Context, path string, form url.Values) (page, error) {
	return u.do(ctx, http.MethodPost, path, form)
}

func (u *user) do(ctx context.Context, method, path string, form url.Values) (page, error) {
	target := u.v.base.JoinPath() // a copy
	ref, err := url.Parse(path)
	if err != nil {
		return page{}, err
	}
	target = target.ResolveReference(ref)
	if u.v.base.Path != "" && u.v.base.Path != "/" && strings.HasPrefix(path, "/") {
		// a target under a prefix (http://host/prefix): the contract's paths are below it
		target.Path = strings.TrimSuffix(u.v.base.Path, "/") + ref.Path
	}
	p := page{req: method + " " + target.RequestURI()}
	var body io.Reader
	if form != nil {
		enc := form.Encode()
		body = strings.NewReader(enc)
		p.req += " " + describeForm(form)
	}
	req, err := http.NewRequestWithContext(ctx, method, target.String(), body)
	if err != nil {
		return p, err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("User-Agent", "tradebench-verify")
	resp, err := u.hc.Do(req)
	if err != nil {
		return p, unwrapURL(err) // the evidence names the request
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return p, fmt.Errorf("reading the answer: %w", err)
	}
	if len(b) > maxBody {
		return p, fmt.Errorf("the answer is longer than %d bytes", maxBody)
	}
	p.status, p.body, p.ctype = resp.StatusCode, string(b), resp.Header.Get("Content-Type")
	return p, nil
}

// unwrapURL drops net/url's wrapper, whose message repeats the URL the request already names.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
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

// cookies returns the user's cookies for the target, to replay them later from another client.
func (u *user) cookies() []*http.Cookie { return u.jar.Cookies(u.v.base) }

// withCookies is a new visitor who sends exactly these cookies (an old session's, say).
func (v *verifier) withCookies(cs []*http.Cookie) *user {
	u := v.newUser()
	u.jar.SetCookies(v.base, cs)
	return u
}

// excerpt is the start of what a page says, tags removed, for the evidence.
func excerpt(body string) string {
	return clean(text(body), excerptLen)
}

// clean cuts s to max bytes on a character boundary and escapes control characters: what the
// target sent is printed on terminals and written in reports.
func clean(s string, max int) string {
	var b strings.Builder
	for i, r := range s {
		if b.Len() >= max {
			b.WriteString("…")
			break
		}
		switch {
		case r == utf8.RuneError:
			b.WriteString(`\ufffd`)
		case r == '\n' || r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+utf8.RuneLen(r)])
		}
	}
	return b.String()
}

// evidence is a page as a check's evidence: the request, the status, an excerpt.
func (p page) evidence(expected, got string) report.Evidence {
	return report.Evidence{Request: dsn.Redact(p.req), Status: p.status, Excerpt: excerpt(p.body),
		Expected: expected, Got: clean(got, 400)}
}
