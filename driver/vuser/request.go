package vuser

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tradebench/tradebench/driver/load"
	"github.com/tradebench/tradebench/driver/recorder"
	"github.com/tradebench/tradebench/driver/scenario"
	"github.com/tradebench/tradebench/internal/clock"
	"github.com/tradebench/tradebench/internal/httpc"
)

// One request of a user, in the order it happens: rendered from the scenario's templates into
// pooled scratch buffers (render, target), sent with its redirects followed as the run's policy
// allows (send), then its final response checked and its variables extracted (check). Unsafe
// requests carry an Idempotency-Key (idempotencyKey).

// scratch holds one request's rendered parts; pooled so a thinking user holds none.
type scratch struct {
	target, header, body, tmp []byte
	ep                        httpc.Endpoint // an absolute URL's endpoint
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// request sends one request (following redirects), checks the final response and extracts
// variables. It returns an extraction's else steps when one found nothing. start, if not zero,
// is the first hit's start (the transaction's, saving a clock read).
func (u *user) request(ctx context.Context, it *load.Iteration, r *scenario.Request, start time.Time) (elseSteps []*scenario.Step, err error) {
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	s.target, s.header, s.body = s.target[:0], s.header[:0], s.body[:0]
	ep, err := u.render(r, s)
	if err != nil {
		return nil, err
	}
	resp, err := u.send(ctx, it, r, ep, s, start)
	if err != nil {
		return nil, err
	}
	return u.check(r, resp, s)
}

// render writes the request's target, header lines and body into s from its templates, and
// returns where it goes: the run's target for a path, an absolute URL's own endpoint.
func (u *user) render(r *scenario.Request, s *scratch) (*httpc.Endpoint, error) {
	ep, err := u.target(r, s)
	if err != nil {
		return nil, err
	}
	for _, h := range r.Header {
		s.header = append(s.header, h.Key...)
		s.header = append(s.header, ": "...)
		s.header = h.Val.Append(s.header, u)
		s.header = append(s.header, "\r\n"...)
	}
	s.header = u.idempotencyKey(s.header, r)
	switch {
	case len(r.Form) > 0:
		for i, f := range r.Form {
			if i > 0 {
				s.body = append(s.body, '&')
			}
			s.body = scenario.AppendQueryEscape(s.body, f.Key)
			s.body = append(s.body, '=')
			s.body = f.Val.AppendQuery(s.body, u)
		}
	case r.Body != nil:
		s.body = r.Body.Append(s.body, u)
	}
	return ep, nil
}

// target writes the request's target (path and query) into s.target. A URL is known to be a
// path or an http(s) URL only once rendered, since a template may make it either.
func (u *user) target(r *scenario.Request, s *scratch) (*httpc.Endpoint, error) {
	ep := &u.w.target
	s.target = r.URL.Append(s.target, u)
	if len(s.target) == 0 || s.target[0] != '/' {
		abs, err := url.Parse(string(s.target))
		if err != nil || (abs.Scheme != "http" && abs.Scheme != "https") {
			return nil, recorder.Failf("bad url", "%s: %q is neither a path nor an http(s) URL", r.Name, s.target)
		}
		if s.ep, err = httpc.ParseEndpoint(abs); err != nil {
			return nil, recorder.Failf("bad url", "%s: %v", r.Name, err)
		}
		ep = &s.ep
		s.target = append(s.target[:0], abs.RequestURI()...)
	} else if u.w.base == nil {
		return nil, recorder.Failf("bad url", "%s: %q is a path but no target URL was given", r.Name, s.target)
	}
	if len(r.Query) > 0 {
		sep := byte('?')
		if bytes.IndexByte(s.target, '?') >= 0 {
			sep = '&'
		}
		for _, f := range r.Query {
			s.target = append(s.target, sep)
			sep = '&'
			s.target = scenario.AppendQueryEscape(s.target, f.Key)
			s.target = append(s.target, '=')
			s.target = f.Val.AppendQuery(s.target, u)
		}
	}
	return ep, nil
}

// send sends the rendered request to ep, each hop a hit of the iteration, and follows the
// redirects the request and the run's policy allow. A hop to another origin carries no body, no
// cookies and none of the user's headers unless the policy keeps them, and never credentials.
func (u *user) send(ctx context.Context, it *load.Iteration, r *scenario.Request, ep *httpc.Endpoint, s *scratch,
	start time.Time) (httpc.Response, error) {
	hreq := httpc.Request{Method: r.Method, Target: s.target, Header: s.header, Body: s.body, KeepBody: r.NeedBody}
	for hop := 0; ; hop++ {
		if hop > 0 || start.IsZero() {
			start = clock.Now()
		}
		resp, err := u.c.Do(ctx, ep, &hreq)
		if err != nil && ctx.Err() != nil {
			// cut off by the run's end: no hit and no error (no "no response" status either);
			// the transaction counts it apart, as stopped
			return resp, ctx.Err()
		}
		it.Hit(start, resp.Status, resp.Bytes)
		if err != nil {
			return resp, fmt.Errorf("%s: %w", r.Name, err)
		}
		if !r.FollowRedirects || !isRedirect(resp.Status) || resp.Location == "" {
			return resp, nil
		}
		if hop == MaxRedirects {
			return resp, recorder.Failf("too many redirects", "%s: more than %d redirects", r.Name, MaxRedirects)
		}
		next, nep, err := resolve(ep, hreq.Target, resp.Location)
		if err != nil {
			return resp, recorder.Failf("bad redirect", "%s: Location %q: %v", r.Name, resp.Location, err)
		}
		pol := u.w.opt.Redirects
		if pol == httpc.RedirectNone {
			return resp, nil
		}
		cross := !httpc.SameOrigin(ep, nep)
		if cross && !pol.Follows(ep, nep) {
			// a target must not aim the load, and what the request carries, at another host
			return resp, recorder.Failf("cross-origin redirect",
				"%s: redirected to another origin (%s://%s), not followed: "+
					"redirects stay on the target's origin unless the redirect policy (Redirects) is any",
				r.Name, scheme(nep), nep.Host)
		}
		s.tmp = append(s.tmp[:0], next...)
		s.target, s.tmp = s.tmp, s.target
		hreq.Target, ep = s.target, nep
		if resp.Status != 307 && resp.Status != 308 {
			hreq.Method, hreq.Body = "GET", nil
		}
		if cross {
			// another origin gets no body, no cookies and none of the user's headers (any of them
			// may be a secret: X-Api-Key) unless the policy keeps them, then never credentials
			hreq.Method, hreq.Body, hreq.NoCookies = "GET", nil, true
			if pol == httpc.RedirectAnyWithHeaders {
				hreq.Header = httpc.StripCredentials(hreq.Header)
			} else {
				hreq.Header = nil
			}
		}
	}
}

func scheme(ep *httpc.Endpoint) string {
	if ep.TLS {
		return "https"
	}
	return "http"
}

func isRedirect(status int) bool {
	switch status {
	case 301, 302, 303, 307, 308:
		return true
	}
	return false
}

// resolve turns a Location into the next request's target and endpoint.
func resolve(ep *httpc.Endpoint, target []byte, loc string) (string, *httpc.Endpoint, error) {
	base, err := url.Parse(scheme(ep) + "://" + ep.Host + string(target))
	if err != nil {
		return "", nil, err
	}
	ref, err := url.Parse(loc)
	if err != nil {
		return "", nil, err
	}
	next := base.ResolveReference(ref)
	if next.Host == base.Host && next.Scheme == base.Scheme {
		return next.RequestURI(), ep, nil
	}
	e, err := httpc.ParseEndpoint(next)
	if err != nil {
		return "", nil, err
	}
	return next.RequestURI(), &e, nil
}

func (u *user) check(r *scenario.Request, resp httpc.Response, s *scratch) ([]*scenario.Step, error) {
	ck := &r.Check
	if ck.AnyStatus {
		// every answer passes the status check (quick mode); the status is still counted
	} else if len(ck.Status) > 0 {
		ok := false
		for _, st := range ck.Status {
			ok = ok || st == resp.Status
		}
		if !ok {
			return nil, recorder.Failf(fmt.Sprintf("status %d", resp.Status), "%s: status %d, expected %v%s",
				r.Name, resp.Status, ck.Status, excerpt(resp.Body))
		}
	} else if resp.Status >= 400 {
		return nil, recorder.Failf(fmt.Sprintf("status %d", resp.Status), "%s: status %d%s", r.Name, resp.Status, excerpt(resp.Body))
	}
	if resp.Bytes < ck.MinBytes {
		return nil, recorder.Failf("check min_bytes", "%s: %d bytes, expected at least %d", r.Name, resp.Bytes, ck.MinBytes)
	}
	for _, t := range ck.Contains {
		s.tmp = t.Append(s.tmp[:0], u)
		if !bytes.Contains(resp.Body, s.tmp) {
			return nil, recorder.Failf("check contains", "%s: response does not contain %q%s", r.Name, s.tmp, excerpt(resp.Body))
		}
	}
	for _, t := range ck.NotContains {
		s.tmp = t.Append(s.tmp[:0], u)
		if bytes.Contains(resp.Body, s.tmp) {
			return nil, recorder.Failf("check not_contains", "%s: response contains %q%s", r.Name, s.tmp, excerpt(resp.Body))
		}
	}
	for _, p := range ck.Regex {
		var re *regexp.Regexp
		re, s.tmp = p.Regexp(u, s.tmp)
		if !re.Match(resp.Body) {
			return nil, recorder.Failf("check regex", "%s: response does not match %s%s", r.Name, re, excerpt(resp.Body))
		}
	}
	for i := range r.Extract {
		x := &r.Extract[i]
		v, ok := extract(x, resp.Body, u.d.R)
		if !ok {
			if x.Else != nil {
				return x.Else, nil
			}
			return nil, recorder.Failf("extract "+x.Var, "%s: nothing matches %s%s", r.Name, x.Re, excerpt(resp.Body))
		}
		u.vars[x.Slot] = v
	}
	return nil, nil
}

func extract(x *scenario.Extract, body []byte, r *rand.Rand) (string, bool) {
	if x.Pick == scenario.PickFirst {
		m := x.Re.FindSubmatchIndex(body)
		if m == nil || m[2*x.Group] < 0 {
			return "", false
		}
		return string(body[m[2*x.Group]:m[2*x.Group+1]]), true
	}
	all := x.Re.FindAllSubmatchIndex(body, -1)
	var vals [][]byte
	for _, m := range all {
		if m[2*x.Group] >= 0 {
			vals = append(vals, body[m[2*x.Group]:m[2*x.Group+1]])
		}
	}
	if len(vals) == 0 {
		return "", false
	}
	var v []byte
	switch x.Pick {
	case scenario.PickLast:
		v = vals[len(vals)-1]
	case scenario.PickRandom:
		v = vals[r.IntN(len(vals))]
	case scenario.PickMax, scenario.PickMin:
		v = vals[0]
		for _, c := range vals[1:] {
			if cmp := numCompare(c, v); (x.Pick == scenario.PickMax) == (cmp > 0) && cmp != 0 {
				v = c
			}
		}
	}
	return string(v), true
}

// numCompare compares decimal digit strings as numbers (longer is larger), else as text.
func numCompare(a, b []byte) int {
	a, b = bytes.TrimLeft(a, "0"), bytes.TrimLeft(b, "0")
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	return bytes.Compare(a, b)
}

// excerpt gives a failed check's example a hint of what came back: the page title, or its start.
func excerpt(body []byte) string {
	if len(body) == 0 {
		return ""
	}
	if i := bytes.Index(body, []byte("<title>")); i >= 0 {
		rest := body[i+7:]
		if j := bytes.Index(rest, []byte("</title>")); j >= 0 && j < 200 {
			return fmt.Sprintf(" (page title %q)", strings.TrimSpace(string(rest[:j])))
		}
	}
	n := min(len(body), 120)
	return fmt.Sprintf(" (body starts %q)", body[:n])
}

// idempotencyHeader names a state-changing request once (the IETF draft "The Idempotency-Key
// HTTP Header Field"): a server that keeps the keys places the request at most once however
// often it arrives — a load balancer's retry after a tier died mid-request, a replay — and the
// driver, which saw one answer, counts one. A server that does not know the header ignores it.
const idempotencyHeader = "Idempotency-Key"

// newKeyPrefix is the workload's random part of its keys: unique per driver process (and so
// per agent), whatever the seed, since a database keeps the keys of earlier runs until reset.
func newKeyPrefix() string {
	var b [12]byte
	crand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// idempotencyKey appends to header a fresh Idempotency-Key line for a request of an unsafe
// method (not GET or HEAD; RFC 9110 §9.2.1), unless the scenario sets one itself: the
// workload's prefix, the user's incarnation and its count of such requests — unique over
// every run of the workload, and no allocation.
// A DayTrader sell is a GET link: it stays unkeyed, and a replay of it finds the holding sold.
func (u *user) idempotencyKey(header []byte, r *scenario.Request) []byte {
	if r.Method == "GET" || r.Method == "HEAD" {
		return header
	}
	for _, h := range r.Header {
		if strings.EqualFold(h.Key, idempotencyHeader) {
			return header
		}
	}
	u.keys++
	header = append(header, idempotencyHeader+": "...)
	header = append(header, u.w.keyPrefix...)
	header = append(header, '.')
	header = strconv.AppendUint(header, u.keyID, 10)
	header = append(header, '.')
	header = strconv.AppendUint(header, u.keys, 10)
	return append(header, "\r\n"...)
}
