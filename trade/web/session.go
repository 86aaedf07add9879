package web

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"hash"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tradebench/tradebench/trade"
)

// CookieName is the session cookie. One cookie serves both URL contracts (path "/").
const CookieName = "tb_session"

// session is the signed state a browser carries. The web tier keeps no session state, so any
// number of web processes sharing the secret accept each other's cookies (the stateless web
// tier of docs/guide.md's scaling section). Revocation lives in the database instead: a session is stamped with its
// account's logout count when it starts, and requests compare the stamp with the account's
// count (one primary-key read; a page that only reads may reuse this tier's check of the last
// Options.SessionCheckInterval, a request that changes something never does). A logout counts one, so it ends every copy of the
// cookie, on every web tier at once; a password change counts one too (the service does it),
// which ends the user's other sessions while the tier that changed it re-stamps its own. The
// price: a logout also ends the same user's sessions in other browsers.
type session struct {
	UserID  string
	Expires time.Time
	Nonce   string // random per login; the CSRF token is derived from it
	Stamp   int64  // the account's logout count when the session started
}

var (
	errNoSession      = errors.New("no session")
	errBadSession     = errors.New("session cookie is not valid")
	errExpiredSession = errors.New("session has expired")
	errEndedSession   = errors.New("session has ended: logged out or password changed")
)

// b64 decodes strictly: a changed padding bit in the signature must not decode to the same MAC.
var b64 = base64.RawURLEncoding.Strict()

// sessions signs and verifies session cookies with HMAC-SHA256.
type sessions struct {
	secret []byte
	ttl    time.Duration
	secure bool // set the Secure attribute (behind TLS)
	now    func() time.Time
	checks *checkCache // this tier's recent revocation checks (nil: check every request)
	macs   sync.Pool   // *macer keyed with secret
}

// encode renders "v2.<uid>.<expiry unix>.<nonce>.<stamp>.<mac>" with the text parts
// base64url-encoded.
func (s *sessions) encode(ss session) string {
	payload := "v2." + b64.EncodeToString([]byte(ss.UserID)) + "." +
		strconv.FormatInt(ss.Expires.Unix(), 10) + "." + ss.Nonce + "." + strconv.FormatInt(ss.Stamp, 10)
	return payload + "." + b64.EncodeToString(s.mac("session:"+payload))
}

func (s *sessions) mac(msg string) []byte {
	var sum [sha256.Size]byte
	s.macTo(&sum, msg)
	return sum[:]
}

// macer is a keyed HMAC-SHA256 and a scratch buffer, pooled: building an HMAC allocates its two
// inner hashes, and every request checks a cookie MAC.
type macer struct {
	h   hash.Hash
	buf []byte
}

// macTo writes the HMAC of the concatenated parts to sum without allocating (after warm-up).
func (s *sessions) macTo(sum *[sha256.Size]byte, parts ...string) {
	m, _ := s.macs.Get().(*macer)
	if m == nil {
		m = &macer{h: hmac.New(sha256.New, s.secret), buf: make([]byte, 0, 256)}
	}
	m.h.Reset()
	m.buf = m.buf[:0]
	for _, p := range parts {
		m.buf = append(m.buf, p...)
	}
	m.h.Write(m.buf)
	m.buf = m.h.Sum(m.buf[:0])
	copy(sum[:], m.buf)
	if cap(m.buf) <= 1024 {
		s.macs.Put(m)
	}
}

// decode verifies a cookie value. Any change to any part fails the MAC.
func (s *sessions) decode(v string) (session, error) {
	if len(v) > 512 {
		return session{}, errBadSession
	}
	i := strings.LastIndexByte(v, '.')
	if i < 0 {
		return session{}, errBadSession
	}
	payload, sig := v[:i], v[i+1:]
	var got, want [sha256.Size]byte
	if b64.DecodedLen(len(sig)) != len(got) {
		return session{}, errBadSession
	}
	if n, err := b64.Decode(got[:], []byte(sig)); err != nil || n != len(got) {
		return session{}, errBadSession
	}
	s.macTo(&want, "session:", payload)
	if !hmac.Equal(got[:], want[:]) {
		return session{}, errBadSession
	}
	// v2.<uid>.<expiry>.<nonce>.<stamp>: cut in place, no slice of parts
	ver, rest, _ := strings.Cut(payload, ".")
	uid64, rest, _ := strings.Cut(rest, ".")
	expS, rest, _ := strings.Cut(rest, ".")
	nonce, stampS, ok := strings.Cut(rest, ".")
	if !ok || ver != "v2" || strings.IndexByte(stampS, '.') >= 0 {
		return session{}, errBadSession
	}
	stamp, err := strconv.ParseInt(stampS, 10, 64)
	if err != nil {
		return session{}, errBadSession
	}
	var uid [384]byte // 512 bytes of base64 at most
	n, err := b64.Decode(uid[:], []byte(uid64))
	if err != nil || n == 0 {
		return session{}, errBadSession
	}
	exp, err := strconv.ParseInt(expS, 10, 64)
	if err != nil {
		return session{}, errBadSession
	}
	ss := session{UserID: string(uid[:n]), Expires: time.Unix(exp, 0), Nonce: nonce, Stamp: stamp}
	if !s.now().Before(ss.Expires) {
		return session{}, errExpiredSession
	}
	return ss, nil
}

// read returns the request's session, errNoSession without a cookie, or why the cookie was refused.
func (s *sessions) read(r *http.Request) (session, error) {
	v := cookieValue(r.Header, CookieName)
	if v == "" {
		return session{}, errNoSession
	}
	return s.decode(v)
}

// cookieValue finds one cookie's value in the request's Cookie headers as net/http's
// Request.Cookie does (first match, surrounding quotes removed), without parsing every other
// cookie the browser sends into a slice of http.Cookie. The value is not validated further:
// the session cookie is verified by its MAC.
func cookieValue(h http.Header, name string) string {
	for _, line := range h["Cookie"] {
		for line != "" {
			var part string
			part, line, _ = strings.Cut(line, ";")
			part = strings.TrimSpace(part)
			k, val, ok := strings.Cut(part, "=")
			if !ok || strings.TrimSpace(k) != name {
				continue
			}
			if len(val) > 1 && val[0] == '"' && val[len(val)-1] == '"' {
				val = val[1 : len(val)-1]
			}
			return val
		}
	}
	return ""
}

// start makes a new session for the account (a fresh nonce, so a new login gets a new CSRF
// token), stamped with its logout count.
func (s *sessions) start(a trade.Account) session {
	var n [16]byte
	rand.Read(n[:])
	return session{UserID: a.UserID, Expires: s.now().Add(s.ttl).Truncate(time.Second), Nonce: b64.EncodeToString(n[:]), Stamp: a.LogoutCount}
}

// current checks ss against its account: a logout or a password change since it started
// (on any web tier) ends it. Unless fresh, a check this tier made within checkEvery is
// reused, so a page that only reads costs no extra call to the services most of the time; a
// request that may change something (fresh) always asks. A failure to reach the services is
// returned as it is.
func (s *sessions) current(ctx context.Context, svc trade.Service, ss session, fresh bool) error {
	if !fresh && s.checks != nil {
		// The logout count only grows. A check that saw a higher count than the session's stamp
		// proves it ended; one that saw a lower count is older than the session (a logout and a
		// new login on another tier since: balanced round-robin, the next login of a user who
		// logged out lands anywhere), so it proves nothing and the services are asked.
		if stamp, ok := s.checks.get(ss.UserID, s.now()); ok && stamp >= ss.Stamp {
			if stamp > ss.Stamp {
				return errEndedSession
			}
			return nil
		}
	}
	a, err := svc.GetAccountData(ctx, ss.UserID)
	if te := trade.AsError(err); te != nil && te.Code == trade.CodeNotFound {
		return errEndedSession
	}
	if err != nil {
		return err
	}
	s.checks.put(ss.UserID, a.LogoutCount, s.now())
	if a.LogoutCount != ss.Stamp {
		return errEndedSession
	}
	return nil
}

// forget drops this tier's last check of userID (after a logout or password change here), so
// the next request asks the services.
func (s *sessions) forget(userID string) { s.checks.forget(userID) }

// checkCache remembers the logout count each user's session was last checked against, for
// checkEvery. Bounded: when full, entries past their time are swept, and if none are, new
// users are simply checked every time.
type checkCache struct {
	every time.Duration
	mu    sync.Mutex
	m     map[string]checked
}

type checked struct {
	stamp int64
	at    time.Time
}

const maxChecked = 100_000

func newCheckCache(every time.Duration) *checkCache {
	if every <= 0 {
		return nil
	}
	return &checkCache{every: every, m: map[string]checked{}}
}

func (c *checkCache) get(uid string, now time.Time) (int64, bool) {
	c.mu.Lock()
	e, ok := c.m[uid]
	c.mu.Unlock()
	if !ok || now.Sub(e.at) >= c.every || now.Before(e.at) {
		return 0, false
	}
	return e.stamp, true
}

func (c *checkCache) put(uid string, stamp int64, now time.Time) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[uid]; !ok && len(c.m) >= maxChecked {
		for k, e := range c.m {
			if now.Sub(e.at) >= c.every {
				delete(c.m, k)
			}
		}
		if len(c.m) >= maxChecked {
			return
		}
	}
	c.m[uid] = checked{stamp: stamp, at: now}
}

func (c *checkCache) forget(uid string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	delete(c.m, uid)
	c.mu.Unlock()
}

// write sets the cookie for ss.
func (s *sessions) write(w http.ResponseWriter, ss session) {
	http.SetCookie(w, &http.Cookie{
		Name: CookieName, Value: s.encode(ss), Path: "/",
		Expires: ss.Expires, MaxAge: int(ss.Expires.Sub(s.now()).Seconds()) + 1,
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode,
	})
}

// refresh slides the expiry of an active session once half its lifetime has passed, so a user
// who keeps working stays logged in while most requests carry no Set-Cookie.
func (s *sessions) refresh(w http.ResponseWriter, ss session) {
	if ss.Expires.Sub(s.now()) < s.ttl/2 {
		ss.Expires = s.now().Add(s.ttl).Truncate(time.Second)
		s.write(w, ss)
	}
}

// clear deletes the cookie in the browser.
func (s *sessions) clear(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{
		Name: CookieName, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode,
	})
}

// csrfToken is the per-session token the /trade/ forms carry: an HMAC of the session's nonce,
// so it needs no server state and changes with every login.
func (s *sessions) csrfToken(ss session) string {
	var sum [sha256.Size]byte
	s.macTo(&sum, "csrf:", ss.Nonce, ":", ss.UserID)
	return b64.EncodeToString(sum[:18])
}

// checkCSRF compares in constant time (hmac.Equal), which no behavioural test can check: a
// plain comparison (bytes.Equal, ==) answers the same for every input and differs only in
// timing, so that mutant survives every test. Keep it; review, not a test, guards it.
func (s *sessions) checkCSRF(ss session, token string) bool {
	want := s.csrfToken(ss)
	return len(token) == len(want) && hmac.Equal([]byte(token), []byte(want))
}
