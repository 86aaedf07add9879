package scenario

import (
	"bytes"
	"fmt"
	"strings"
)

// A request compiles to templates for each part of the message driver/vuser renders: URL,
// query, form or body, and headers. What can be refused at load time is: a constant URL that is
// neither a path nor an http(s) URL, a method that is not a token, a header the driver writes
// itself or whose value would split the header section, a think inside a transaction.

// request compiles one request. The result's set adds the variables its extractions assign.
func (c *compiler) request(r *rawRequest, defined set, inTx bool) (*Request, set, error) {
	sc := scope{c, defined}
	req := &Request{Line: r.line, FollowRedirects: true}
	if err := requestLine(req, r, sc); err != nil {
		return nil, nil, err
	}
	var err error
	if req.Query, err = compileFields("query", r.Query, sc); err != nil {
		return nil, nil, err
	}
	if req.Form, err = compileFields("form", r.Form, sc); err != nil {
		return nil, nil, err
	}
	if req.Header, err = c.requestHeaders(r, sc); err != nil {
		return nil, nil, err
	}
	if r.Body != "" {
		if req.Body, err = compileTemplate(r.Body, sc); err != nil {
			return nil, nil, r.errorf("body: %w", err)
		}
	}
	if err := requestThink(req, r, inTx); err != nil {
		return nil, nil, err
	}
	if r.FollowRedirects != nil {
		req.FollowRedirects = *r.FollowRedirects
	}
	if r.Check != nil {
		if req.Check, err = compileCheck(r.Check, sc); err != nil {
			return nil, nil, err
		}
	}
	after := defined
	if req.Extract, after, err = c.extracts(r.Extract, defined, inTx); err != nil {
		return nil, nil, err
	}
	req.NeedBody = len(req.Check.Contains)+len(req.Check.NotContains)+len(req.Check.Regex)+len(req.Extract) > 0
	return req, after, nil
}

// errorf is an error in the request r, with its line.
func (r *rawRequest) errorf(format string, args ...any) error {
	return fmt.Errorf("line %d: request: "+format, append([]any{r.line}, args...)...)
}

// requestLine compiles what goes in the request line: the URL (when it is constant, a path
// relative to the target or an absolute http(s) URL; a templated one is checked as it is sent),
// the method (POST when there is a form or body to send, else GET) and the request's name,
// which defaults to method and URL as written.
func requestLine(req *Request, r *rawRequest, sc scope) error {
	if r.URL == "" {
		return r.errorf("url is required")
	}
	var err error
	if req.URL, err = compileTemplate(r.URL, sc); err != nil {
		return r.errorf("url: %w", err)
	}
	if u, ok := req.URL.Const(); ok && !strings.HasPrefix(u, "/") && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return r.errorf("url %q must be a path starting with / (relative to the target) or an http(s):// URL", u)
	}
	if r.Body != "" && len(r.Form) > 0 {
		return r.errorf("give form or body, not both")
	}
	req.Method = strings.ToUpper(r.Method)
	if req.Method == "" {
		req.Method = "GET"
		if len(r.Form) > 0 || r.Body != "" {
			req.Method = "POST"
		}
	}
	if !isToken(req.Method) {
		return r.errorf("method %q is not an HTTP method", r.Method)
	}
	req.Name = r.Name
	if req.Name == "" {
		req.Name = req.Method + " " + r.URL
	}
	return nil
}

// compileFields compiles query parameters, form fields or headers (what), in the order written.
func compileFields(what string, m orderedMap, sc scope) ([]Field, error) {
	var out []Field
	for _, f := range m {
		t, err := compileTemplate(f.Val, sc)
		if err != nil {
			return nil, fmt.Errorf("line %d: %s %s: %w", f.Line, what, f.Key, err)
		}
		out = append(out, Field{Key: f.Key, Val: t})
	}
	return out, nil
}

// forbiddenHeaders are the framing headers the driver writes itself: a scenario setting them
// would contradict the message actually sent.
var forbiddenHeaders = map[string]bool{"host": true, "content-length": true, "transfer-encoding": true, "connection": true}

// formType is a form's Content-Type, sent unless the request names its own.
const formType = "application/x-www-form-urlencoded"

// requestHeaders compiles the request's headers: the scenario's first, then the request's own
// (which replace those of the same name, in any case). A header name that is not a token, one
// the driver writes itself, or a value with a line break (which would let a value add headers
// of its own) is refused.
func (c *compiler) requestHeaders(r *rawRequest, sc scope) ([]Field, error) {
	var hs orderedMap
	for _, h := range c.headers {
		if !hasKeyFold(r.Headers, h.Key) {
			hs = append(hs, h)
		}
	}
	hs = append(hs, r.Headers...)
	hasCT := false
	for _, h := range hs {
		if !isToken(h.Key) {
			return nil, fmt.Errorf("line %d: header name %q is not valid", h.Line, h.Key)
		}
		if forbiddenHeaders[strings.ToLower(h.Key)] {
			return nil, fmt.Errorf("line %d: header %s is set by the driver itself", h.Line, h.Key)
		}
		if strings.ContainsAny(h.Val, "\r\n") {
			return nil, fmt.Errorf("line %d: header %s: value has a line break", h.Line, h.Key)
		}
		hasCT = hasCT || strings.EqualFold(h.Key, "Content-Type")
	}
	fields, err := compileFields("header", hs, sc)
	if err != nil {
		return nil, err
	}
	if len(r.Form) > 0 && !hasCT {
		fields = append(fields, Field{Key: "Content-Type", Val: Literal(formType)})
	}
	return fields, nil
}

// hasKeyFold reports whether m has the key, in any case.
func hasKeyFold(m orderedMap, key string) bool {
	for _, f := range m {
		if strings.EqualFold(f.Key, key) {
			return true
		}
	}
	return false
}

// requestThink compiles the think time after the request, which replaces the scenario's. None
// is allowed inside a transaction: it would count in the transaction's time.
func requestThink(req *Request, r *rawRequest, inTx bool) error {
	if r.Think == nil {
		return nil
	}
	t, err := ParseThink(*r.Think)
	if err != nil {
		return r.errorf("%w", err)
	}
	req.Think = &t
	if inTx {
		return r.errorf("think inside a transaction would count in its time; put it after the transaction")
	}
	return nil
}

// isToken reports whether s is an HTTP token (RFC 9110), as a method or header name must be.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || bytes.IndexByte([]byte(`()<>@,;:\"/[]?={}`), c) >= 0 {
			return false
		}
	}
	return true
}
