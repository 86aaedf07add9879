package web_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/web"
)

// The pages' stylesheets are files, not inline: every page (StockTrader on both contracts, and
// JSF) links its stylesheet with the content's hash, the CSP allows styles from the site only
// (no 'unsafe-inline'), the linked file is served cacheable for a year, an unversioned or
// stale link for five minutes, and a matching ETag answers 304. A real browser applying the
// stylesheet under that CSP: trade/server TestQuotesPageLiveInBrowser. Mutant: a request with
// the current hash answered with the short lifetime (scripts/mutants.d/web-static-cache-hash.sed).
func TestStylesheetsLinkedAndCached(t *testing.T) {
	st := smallStore(t)
	h, err := web.New(business.New(st, business.Options{}), web.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	get := func(path string, hdr ...string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	get("/daytrader/app?action=login&uid=uid:0&passwd=xxx")
	link := regexp.MustCompile(`<link rel="stylesheet" href="(/trade/static/(?:style|jsf)\.css)\?v=([0-9a-f]{16})">`)
	for _, p := range []string{"/daytrader/app?action=account", "/trade/home", "/daytrader/app?action=quotes&symbols=s:1", "/daytrader/welcome.faces"} {
		resp, page := get(p)
		if resp.StatusCode != 200 || strings.Contains(page, "<style") || strings.Contains(page, "style=") {
			t.Errorf("%s: status %d, inline style in the page", p, resp.StatusCode)
		}
		csp := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "style-src 'self'") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("%s: CSP %q, want style-src 'self' and nothing inline", p, csp)
		}
		m := link.FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("%s links no versioned stylesheet:\n%.600s", p, page)
		}
		path, hash := m[1], m[2]
		resp, css := get(path + "?v=" + hash)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/css; charset=utf-8" || !strings.Contains(css, "table{") {
			t.Errorf("%s: %d %q %.80q", path, resp.StatusCode, resp.Header.Get("Content-Type"), css)
		}
		if cc := resp.Header.Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
			t.Errorf("%s?v=%s (the current version): Cache-Control %q, want a year", path, hash, cc)
		}
		for _, stale := range []string{path, path + "?v=0000000000000000"} {
			if resp, _ := get(stale); resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "public, max-age=300" {
				t.Errorf("%s: %d, Cache-Control %q, want five minutes", stale, resp.StatusCode, resp.Header.Get("Cache-Control"))
			}
		}
		if resp, body := get(path, "If-None-Match", `"`+hash+`"`); resp.StatusCode != http.StatusNotModified || body != "" {
			t.Errorf("%s with its ETag: %d, %d bytes, want 304 and no body", path, resp.StatusCode, len(body))
		}
	}
}
