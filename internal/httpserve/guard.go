package httpserve

import (
	"crypto/subtle"
	"net"
	"net/http"
	"os"
	"strings"
)

// A listener that shows a run to a browser (the live dashboard, the driver's metrics) is
// reachable by any page the browser opens: a DNS-rebinding page names its own host, resolves it
// to 127.0.0.1 and reads the answers. Guard refuses a request whose Host is not one the
// listener answers to, takes an optional token, and MaxConns caps its connections (uncapped, a
// page that opens 1,000 event streams holds 1,000 connections and their buffers).

// DefaultMaxConns is the connection cap of a guarded listener.
const DefaultMaxConns = 64

// TokenCookie carries a guarded listener's token after the first request gave it as ?token=,
// so the page's own requests (its event stream) need not repeat it.
const TokenCookie = "tradebench_token"

// GuardOptions configure Guard.
type GuardOptions struct {
	// Listen is the address the listener was given (host:port); its host is allowed, and when it
	// is a wildcard (":9466", "0.0.0.0:…", "[::]:…") so are this machine's host name and
	// interface addresses.
	Listen string
	// Hosts are more host names (or addresses) the listener answers to, e.g. the name
	// Prometheus scrapes it by.
	Hosts []string
	// Token, if set, is required: as "Authorization: Bearer TOKEN", as ?token=TOKEN (which sets
	// TokenCookie), or in TokenCookie.
	Token string
}

// Guard wraps h with the Host check and the token of o. Loopback names (localhost, *.localhost,
// 127.0.0.0/8, ::1) are always allowed.
func Guard(h http.Handler, o GuardOptions) http.Handler {
	g := &guard{h: h, token: o.Token, hosts: map[string]bool{}}
	host, _, err := net.SplitHostPort(o.Listen)
	if err != nil {
		host = o.Listen
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		if name, err := os.Hostname(); err == nil {
			g.hosts[strings.ToLower(name)] = true
		}
		if addrs, err := net.InterfaceAddrs(); err == nil {
			for _, a := range addrs {
				if n, ok := a.(*net.IPNet); ok {
					g.hosts[n.IP.String()] = true
				}
			}
		}
	} else {
		g.hosts[strings.ToLower(strings.Trim(host, "[]"))] = true
	}
	for _, n := range o.Hosts {
		g.hosts[strings.ToLower(strings.Trim(strings.TrimSpace(n), "[]"))] = true
	}
	return g
}

type guard struct {
	h     http.Handler
	token string
	hosts map[string]bool
}

func (g *guard) allowedHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") || g.hosts[host] {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.allowedHost(r.Host) {
		http.Error(w, "this listener does not answer to host "+strings.ReplaceAll(r.Host, "\n", "")+": use its address, or add the name (--live-allow-host)", http.StatusMisdirectedRequest)
		return
	}
	if g.token != "" {
		got := ""
		if a := r.Header.Get("Authorization"); strings.HasPrefix(a, "Bearer ") {
			got = strings.TrimPrefix(a, "Bearer ")
		} else if q := r.URL.Query().Get("token"); q != "" {
			got = q
			if subtle.ConstantTimeCompare([]byte(got), []byte(g.token)) == 1 {
				http.SetCookie(w, &http.Cookie{Name: TokenCookie, Value: g.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			}
		} else if c, err := r.Cookie(TokenCookie); err == nil {
			got = c.Value
		}
		if subtle.ConstantTimeCompare([]byte(got), []byte(g.token)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="tradebench"`)
			http.Error(w, "a token is required (?token=… or Authorization: Bearer …)", http.StatusUnauthorized)
			return
		}
	}
	g.h.ServeHTTP(w, r)
}

// MaxConns returns ln accepting at most n (≤ 0: DefaultMaxConns) open connections at once: one
// beyond is closed as soon as it is accepted.
func MaxConns(ln net.Listener, n int) net.Listener {
	if n <= 0 {
		n = DefaultMaxConns
	}
	return &capped{Listener: ln, slots: make(chan struct{}, n)}
}

type capped struct {
	net.Listener
	slots chan struct{}
}

func (l *capped) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			return &countedConn{Conn: c, release: func() { <-l.slots }}, nil
		default:
			_ = c.Close()
		}
	}
}
