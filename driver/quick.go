package driver

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tradebench/tradebench/driver/scenario"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/internal/untrusted"
)

// QuickRequest is quick mode's request beyond its URL, as wrk, hey and oha take it: the method,
// extra headers and a body sent as is. Quick mode measures what the URL answers: its preflight
// accepts any HTTP answer (only a connection failure refuses the run), and every answer, whatever
// its status, is a measured transaction, counted by status in the results: a wrk or hey user
// pointing at a URL that answers 401 expects its 401s measured and reported ("Non-2xx or 3xx
// responses: N"), not a failed run. A failure is what wrk calls an error: no answer (a refused or
// broken connection, a timeout).
// Which redirects are followed is the drive's Redirects policy (the command line's default in
// quick mode is none: a 303 to a login page would otherwise measure the login page's 401).
type QuickRequest struct {
	// Method is the HTTP method ("" = GET, or POST with a body).
	Method string `json:"method,omitempty"`
	// Headers are "Name: value" lines, in order; a name may appear once.
	Headers []string `json:"headers,omitempty"`
	// Body is sent exactly as given, unless BodyTemplate.
	Body []byte `json:"body,omitempty"`
	// BodyTemplate makes Body a template, as a scenario's body: a counter, a random number or
	// pick, the user's number (scenario.Template). A hole that does not compile is an error of
	// Request.Body.
	BodyTemplate bool `json:"body_template,omitempty"`
	// Data are the rows of a CSV feed the URL, the headers and a templated body read as
	// {{row.COLUMN}} (scenario.ReadFeed; nil: none).
	Data *scenario.Feed `json:"-"`
}

// ReadQuickData reads quick mode's data rows from the CSV file at path (scenario.ReadFeed's
// bounds); perUser gives each virtual user its own row instead of rows round-robin.
func ReadQuickData(path string, perUser bool) (*scenario.Feed, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	feed, err := scenario.ReadFeed(f, path)
	if err != nil {
		return nil, err
	}
	feed.PerUser = perUser
	return feed, nil
}

// MaxQuickBody bounds a quick-mode body read from a file: it is held in memory and sent by
// every request.
const MaxQuickBody = 64 << 20

// QuickBody is a quick-mode body as wrk, hey and oha users write it: the text as given, or with
// "@FILE" the file's content (at most MaxQuickBody). An empty body is nil: no body.
func QuickBody(arg string) ([]byte, error) {
	path, ok := strings.CutPrefix(arg, "@")
	if !ok {
		if arg == "" {
			return nil, nil
		}
		return []byte(arg), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("@%s: %w", path, err)
	}
	defer f.Close()
	b, err := untrusted.Read(f, MaxQuickBody, "@"+path)
	if err != nil || len(b) == 0 {
		return nil, err
	}
	return b, nil
}

// headersNotSet are the headers the driver writes itself from the URL and the body.
var headersNotSet = map[string]bool{"host": true, "content-length": true, "transfer-encoding": true, "connection": true}

// header splits a "Name: value" line.
func header(line string) (name, value string, err error) {
	name, value, ok := strings.Cut(line, ":")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	switch {
	case !ok:
		return "", "", fmt.Errorf("%q: want 'Name: value'", line)
	case name == "" || strings.ContainsAny(name, " \t\"(),/;<=>?@[\\]{}") || strings.ContainsFunc(name, func(r rune) bool { return r <= ' ' || r >= 0x7f }):
		return "", "", fmt.Errorf("%q: %q is not a header name", line, name)
	case strings.ContainsAny(value, "\r\n"):
		return "", "", fmt.Errorf("%q: the value has a line break", line)
	case strings.ContainsFunc(value, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }):
		// RFC 9110 field values: visible characters, space and tab; a vertical tab or DEL sent
		// raw is read differently by each server and proxy in front of it
		return "", "", fmt.Errorf("%q: the value has a control character (only visible characters, space and tab)", line)
	case headersNotSet[strings.ToLower(name)]:
		return "", "", fmt.Errorf("%q: %s is written by the driver itself (from the URL and the body)", line, http.CanonicalHeaderKey(name))
	}
	return name, value, nil
}

// validate checks the request; quick says the drive is in quick mode (a request is quick
// mode's only).
func (q *QuickRequest) validate(quick bool) error {
	if q == nil {
		return nil
	}
	if !quick {
		return setting.Errorf("Request", "a method, headers and a body shape quick mode's one URL; a scenario's requests carry their own")
	}
	if q.Method != "" {
		m := strings.ToUpper(q.Method)
		if m == "" || strings.ContainsFunc(m, func(r rune) bool { return !('A' <= r && r <= 'Z' || r == '-' || r == '_') }) {
			return setting.Errorf("Request.Method", "%q is not an HTTP method (GET, POST, PUT, DELETE, …)", q.Method)
		}
	}
	seen := map[string]bool{}
	for _, h := range q.Headers {
		name, _, err := header(h)
		if err != nil {
			return setting.Errorf("Request.Headers", "%v", err)
		}
		if seen[strings.ToLower(name)] {
			return setting.Errorf("Request.Headers", "%s given twice: give each header once (join values with a comma)", name)
		}
		seen[strings.ToLower(name)] = true
	}
	return nil
}

// noScheme is the error for a quick-mode URL written without its scheme ("127.0.0.1:8080/"): the error
// suggests the URL with http:// in front (a scheme-relative "//host/" gets http: only, not
// "http:////host/").
func noScheme(rawURL string) error {
	return setting.Errorf("URL", "%q has no scheme: did you mean http://%s ?", rawURL, strings.TrimLeft(rawURL, "/"))
}

// quickScenario is quick mode's one-request scenario, written in the scenario format so it
// runs through exactly the same engine; q shapes its request (nil: a GET).
func quickScenario(rawURL string, q *QuickRequest, opt scenario.Options) (*scenario.Scenario, string, error) {
	if !strings.Contains(rawURL, "://") {
		return nil, "", noScheme(rawURL)
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, "", setting.Errorf("URL", "%q: %v", rawURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, "", setting.Errorf("URL", "%q: give an absolute http:// or https:// URL", rawURL)
	}
	if q == nil {
		q = &QuickRequest{}
	}
	opt.Data = q.Data
	target := u.Scheme + "://" + u.Host
	// the path and query as written: u.RequestURI() would escape a template's braces in the
	// path (s:{0..1000} -> s:%7B0..1000%7D) and every request would ask for the literal text
	rest := rawURL[strings.Index(rawURL, "://")+3:]
	path := "/"
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		path = rest[i:]
	}
	if strings.HasPrefix(path, "?") {
		path = "/" + path
	}
	path, _, _ = strings.Cut(path, "#")
	method := strings.ToUpper(q.Method)
	if method == "" {
		method = http.MethodGet
		if len(q.Body) > 0 {
			method = http.MethodPost
		}
	}
	req := map[string]any{"name": method + " " + u.Path, "url": path, "method": method}
	if len(q.Headers) > 0 {
		hs := map[string]string{}
		for _, h := range q.Headers {
			name, value, err := header(h)
			if err != nil {
				return nil, "", setting.Errorf("Request.Headers", "%v", err)
			}
			hs[name] = value
		}
		req["headers"] = hs
	}
	if q.BodyTemplate {
		req["body"] = string(q.Body) // compiled by scenario.Parse, as a scenario file's body
	}
	data, err := yaml.Marshal(map[string]any{"name": "quick", "flow": []any{map[string]any{"request": req}}})
	if err != nil {
		return nil, "", err
	}
	sc, err := scenario.Parse("url", data, opt)
	if err != nil && q.BodyTemplate {
		return nil, "", setting.Errorf("Request.Body", "%v", err)
	}
	if err != nil && q.Data != nil {
		return nil, "", setting.Errorf("Request.Data", "%v", err)
	}
	if err != nil {
		return nil, "", err
	}
	if len(q.Body) > 0 && !q.BodyTemplate {
		sc.Steps[0].Request.Body = scenario.Literal(string(q.Body))
	}
	sc.Steps[0].Request.Check.AnyStatus = true
	return sc, target, nil
}
