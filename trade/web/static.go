package web

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"net/http"

	"github.com/a-h/templ"
)

// The pages' static files, embedded: the two stylesheets and the live-update script. A page
// links a file with its content's hash (…/style.css?v=HASH), and a request carrying the
// current hash is answered cacheable for a year, so a browser fetches a stylesheet once and
// again only after it changes; without the hash (an old link, a hand-typed URL) for five
// minutes. The stylesheets were inline <style> blocks before: 1.9 KB on every page, which took
// most pages past net/http's 4 KB write buffer and so cost each response a second write(2)
// (docs/benchmarks.md), and needed the CSP's style-src 'unsafe-inline'.
//
//go:embed static
var staticFS embed.FS

// staticFile is one file under /trade/static/.
type staticFile struct {
	body  []byte
	ctype string
	hash  string // the first 16 hex digits of the body's SHA-256
}

// staticFiles are the files served, by path.
var staticFiles = map[string]*staticFile{
	"/trade/static/style.css": mustStatic("static/style.css", "text/css; charset=utf-8"),
	"/trade/static/jsf.css":   mustStatic("static/jsf.css", "text/css; charset=utf-8"),
	"/trade/static/live.js":   mustStatic("static/live.js", "text/javascript; charset=utf-8"),
}

func mustStatic(name, ctype string) *staticFile {
	b, err := staticFS.ReadFile(name)
	if err != nil {
		panic("web: embedded " + name + ": " + err.Error())
	}
	sum := sha256.Sum256(b)
	return &staticFile{body: b, ctype: ctype, hash: hex.EncodeToString(sum[:8])}
}

// staticHref is the link to the static file at path, with its hash.
func staticHref(path string) string { return path + "?v=" + staticFiles[path].hash }

var (
	// styleHref is the StockTrader pages' stylesheet link (pages.templ's layout).
	styleHref = templ.SafeURL(staticHref("/trade/static/style.css"))
	// jsfStyleHref is the JSF pages' (templates/jsf_layout.html).
	jsfStyleHref = template.URL(staticHref("/trade/static/jsf.css"))
)

var (
	hdrCacheYear  = []string{"public, max-age=31536000, immutable"}
	hdrCacheShort = []string{"public, max-age=300"}
)

// static serves a file of staticFiles.
func (a *app) static(q *req) error {
	f := staticFiles[q.r.URL.Path]
	h := q.w.Header()
	h["Content-Type"] = []string{f.ctype}
	h["Cache-Control"] = hdrCacheShort
	if q.r.URL.Query().Get("v") == f.hash {
		h["Cache-Control"] = hdrCacheYear
	}
	h["Etag"] = []string{`"` + f.hash + `"`}
	if q.r.Header.Get("If-None-Match") == `"`+f.hash+`"` {
		q.w.WriteHeader(http.StatusNotModified)
		return nil
	}
	if q.r.Method != http.MethodHead {
		q.w.Write(f.body)
	}
	return nil
}
