package httpc

import (
	"bytes"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Jar is a virtual user's cookies: a short list, because a user talks to one site and holds a
// session cookie or two. It honours Domain, Path, Max-Age and Expires; the zero Jar is empty.
// It keeps what browsers keep (RFC 6265 section 6.1's minimums, Chrome's limits): at most
// MaxCookiesPerHost cookies per host or domain and MaxCookies in all, the oldest evicted first,
// and no cookie whose name and value pass MaxCookieBytes — so a target setting 10,000 cookies a
// response cannot grow a user's memory, or the time each new cookie costs, without bound.
type Jar struct {
	cookies []jarCookie
	// lastHost is the host of the response being read, for cookies without a Domain attribute.
	lastHost, lastHostFor string
}

type jarCookie struct {
	name, value string
	host        string // exact host, or the Domain attribute's domain when domain is true
	domain      bool
	path        string
	expires     time.Time // zero: a session cookie
}

// Reset forgets every cookie (a new user session).
func (j *Jar) Reset() {
	clear(j.cookies)
	j.cookies = j.cookies[:0]
}

// The jar's limits.
const (
	MaxCookiesPerHost = 50
	MaxCookies        = 3000
	MaxCookieBytes    = 4096
)

// Len is the number of cookies held.
func (j *Jar) Len() int { return len(j.cookies) }

// Get returns a cookie's value by name (for tests and diagnostics).
func (j *Jar) Get(name string) (string, bool) {
	for _, c := range j.cookies {
		if c.name == name {
			return c.value, true
		}
	}
	return "", false
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return strings.ToLower(h)
	}
	return strings.ToLower(hostport)
}

// set stores a Set-Cookie header value received from lastHost.
func (j *Jar) set(line string) {
	if len(line) > 2*MaxCookieBytes {
		return // not worth parsing: its name and value cannot fit
	}
	ck, err := http.ParseSetCookie(line)
	if err != nil || ck.Name == "" || len(ck.Name)+len(ck.Value) > MaxCookieBytes {
		return // a malformed or oversized cookie is ignored, as browsers do
	}
	host := j.lastHost
	c := jarCookie{name: ck.Name, value: ck.Value, host: host, path: ck.Path}
	if d := strings.TrimPrefix(strings.ToLower(ck.Domain), "."); d != "" {
		if host != d && !strings.HasSuffix(host, "."+d) {
			return // a cookie for another domain is refused
		}
		c.host, c.domain = d, true
	}
	if c.path == "" || c.path[0] != '/' {
		c.path = "/"
	}
	expired := false
	switch {
	case ck.MaxAge < 0:
		expired = true
	case ck.MaxAge > 0:
		c.expires = time.Now().Add(time.Duration(ck.MaxAge) * time.Second)
	case !ck.Expires.IsZero():
		c.expires = ck.Expires
		expired = !ck.Expires.After(time.Now())
	}
	for i := range j.cookies {
		o := &j.cookies[i]
		if o.name == c.name && o.host == c.host && o.path == c.path {
			if expired {
				j.cookies = append(j.cookies[:i], j.cookies[i+1:]...)
			} else {
				*o = c
			}
			return
		}
	}
	if expired {
		return
	}
	// evict the host's oldest beyond its limit, then the jar's oldest beyond the total
	n, oldest := 0, -1
	for i := range j.cookies {
		if j.cookies[i].host == c.host {
			if n++; oldest < 0 {
				oldest = i
			}
		}
	}
	if n >= MaxCookiesPerHost {
		j.cookies = append(j.cookies[:oldest], j.cookies[oldest+1:]...)
	} else if len(j.cookies) >= MaxCookies {
		j.cookies = append(j.cookies[:0], j.cookies[1:]...)
	}
	j.cookies = append(j.cookies, c)
}

// appendHeader appends a Cookie header for a request to ep's target path (unless send is false),
// and remembers the host for the cookies its response sets.
func (j *Jar) appendHeader(b []byte, ep *Endpoint, target []byte, send bool) []byte {
	if j.lastHost == "" || j.lastHostFor != ep.Host {
		j.lastHost, j.lastHostFor = hostOnly(ep.Host), ep.Host
	}
	if len(j.cookies) == 0 || !send {
		return b
	}
	path := target
	if i := bytes.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	now := time.Time{}
	first := true
	for i := 0; i < len(j.cookies); i++ {
		c := &j.cookies[i]
		if !c.expires.IsZero() {
			if now.IsZero() {
				now = time.Now()
			}
			if !c.expires.After(now) {
				j.cookies = append(j.cookies[:i], j.cookies[i+1:]...)
				i--
				continue
			}
		}
		if c.domain {
			if j.lastHost != c.host && !strings.HasSuffix(j.lastHost, "."+c.host) {
				continue
			}
		} else if j.lastHost != c.host {
			continue
		}
		if !pathMatch(path, c.path) {
			continue
		}
		if first {
			b = append(b, "Cookie: "...)
			first = false
		} else {
			b = append(b, "; "...)
		}
		b = append(b, c.name...)
		b = append(b, '=')
		b = append(b, c.value...)
	}
	if !first {
		b = append(b, "\r\n"...)
	}
	return b
}

// pathMatch is RFC 6265 5.1.4.
func pathMatch(reqPath []byte, cookiePath string) bool {
	if len(reqPath) == 0 {
		reqPath = []byte("/")
	}
	if len(reqPath) < len(cookiePath) || string(reqPath[:len(cookiePath)]) != cookiePath {
		return false
	}
	return len(reqPath) == len(cookiePath) || cookiePath[len(cookiePath)-1] == '/' || reqPath[len(cookiePath)] == '/'
}

// Clone returns a copy of the jar that shares nothing with it: a session's cookies kept to be
// replayed later by another client (verify's check that a logout ends the session).
func (j *Jar) Clone() Jar { return Jar{cookies: slices.Clone(j.cookies)} }
