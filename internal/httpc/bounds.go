package httpc

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tradebench/tradebench/internal/suggest"
)

// What a target can make the driver hold is bounded (docs/security.md, "Pointing the driver at a
// system you do not trust"): a response's headers, a kept body, all kept bodies at once, the
// cookies, and where a redirect may lead.

// DefaultMaxHeaderBytes bounds a response's header section (status line included), as browsers
// do (Chrome: 256 KiB); DefaultMaxHeaders bounds its number of header lines. Unbounded, a target
// sending 100,000 Set-Cookie lines holds the preflight on CPU for its whole timeout.
const (
	DefaultMaxHeaderBytes = 256 << 10
	DefaultMaxHeaders     = 500
)

// DefaultMaxBody bounds one body kept for checks or extraction (Request.MaxBody 0).
const DefaultMaxBody = 64 << 20

// DefaultBodyBudget is the whole driver's memory for kept bodies when Options.Budget is nil.
const DefaultBodyBudget = 128 << 20

// pooledBody is the capacity of a body buffer that costs the budget nothing: every user's
// buffer starts from the pool at this size, so a run of ordinary pages never touches the
// budget's shared counter; only growth beyond it is reserved.
const pooledBody = 16 << 10

// BodyBudget is the memory every Client sharing it may hold in kept response bodies at once,
// counted as buffer capacity beyond the first 16 KiB each. A body that would take the total past
// the limit fails its request (KindBodyBudget) instead of growing: the driver's memory stays
// bounded however many users a target sends huge pages to (with each user capped on its own
// instead, 30 users of 1 GiB bodies take 3.7 GiB). Safe for concurrent use.
//
// What it counts is what kept bodies really cost: every buffer a body is read into, from its
// allocation until the garbage collector could take it. A body of known length is read into one
// buffer of its size (no doubling, no copies); a buffer past the shared pool's size is not
// dropped when its body is released but kept, still charged, for the next body (any user's),
// so a steady stream of big pages allocates nothing and leaves no garbage behind; the old buffer
// of a body that grows stays charged with the new. A buffer is let go only when the budget needs
// its room for one of another size. A budget counting one buffer per body and dropping the rest
// would let one user of 63 MiB bodies reach 488 MiB, and 30 users of 60 MiB bodies 743 MiB, under
// a 128 MiB budget at the driver's GOGC.
type BodyBudget struct {
	limit      int64
	used, peak atomic.Int64
	mu         sync.Mutex
	free       []*[]byte // released buffers larger than the pool keeps, still charged
}

// maxPooled is the largest buffer the shared sync.Pool takes back (uncharged); a larger one is
// kept by the budget.
const maxPooled = 1 << 20

// charge is what a buffer of capacity n costs the budget: its capacity beyond pooledBody.
func charge(n int) int64 { return max(0, int64(n)-pooledBody) }

// take returns the smallest free buffer of capacity at least n, its charge now its taker's, or
// nil.
func (b *BodyBudget) take(n int) *[]byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	best := -1
	for i, f := range b.free {
		if cap(*f) >= n && (best < 0 || cap(*f) < cap(*b.free[best])) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	f := b.free[best]
	b.free = slices.Delete(b.free, best, best+1)
	return f
}

// keep takes a released buffer back, still charged, for the next body that fits in it.
func (b *BodyBudget) keep(buf *[]byte) {
	*buf = (*buf)[:0]
	b.mu.Lock()
	b.free = append(b.free, buf)
	b.mu.Unlock()
}

// reserveFreeing reserves n, letting free buffers go (the largest first) while they are what
// stands in the way.
func (b *BodyBudget) reserveFreeing(n int64) bool {
	for !b.reserve(n) {
		b.mu.Lock()
		if len(b.free) == 0 {
			b.mu.Unlock()
			return false
		}
		big := 0
		for i, f := range b.free {
			if cap(*f) > cap(*b.free[big]) {
				big = i
			}
		}
		f := b.free[big]
		b.free = slices.Delete(b.free, big, big+1)
		b.mu.Unlock()
		b.release(charge(cap(*f)))
	}
	return true
}

// NewBodyBudget returns a budget of limit bytes (<= 0: DefaultBodyBudget).
func NewBodyBudget(limit int64) *BodyBudget {
	if limit <= 0 {
		limit = DefaultBodyBudget
	}
	return &BodyBudget{limit: limit}
}

// Limit is the budget's size in bytes.
func (b *BodyBudget) Limit() int64 { return b.limit }

// Peak is the most the budget's clients held at once.
func (b *BodyBudget) Peak() int64 { return b.peak.Load() }

// InUse is what the budget's clients hold now.
func (b *BodyBudget) InUse() int64 { return b.used.Load() }

func (b *BodyBudget) reserve(n int64) bool {
	for {
		u := b.used.Load()
		if u+n > b.limit {
			return false
		}
		if b.used.CompareAndSwap(u, u+n) {
			for p := b.peak.Load(); u+n > p && !b.peak.CompareAndSwap(p, u+n); p = b.peak.Load() {
			}
			return true
		}
	}
}

func (b *BodyBudget) release(n int64) { b.used.Add(-n) }

// defaultBudget is shared by every Options without a Budget: one budget for the process.
var defaultBudget = NewBodyBudget(DefaultBodyBudget)

func (o *Options) budget() *BodyBudget {
	if o.Budget != nil {
		return o.Budget
	}
	return defaultBudget
}

// KindBodyBudget is a kept body the budget had no room for.
const KindBodyBudget = "body budget"

// RedirectPolicy says which redirects a client of the driver follows. The zero value is
// RedirectSameOrigin, the default: a target cannot aim the load (and the login's password) at
// another host by answering 307.
type RedirectPolicy uint8

const (
	// RedirectSameOrigin follows a redirect only to the same scheme, host and port.
	RedirectSameOrigin RedirectPolicy = iota
	// RedirectNone follows no redirect: the 3xx is the response.
	RedirectNone
	// RedirectAny follows redirects to any origin; a hop to another origin carries no body, no
	// cookies and none of the headers the user set (an X-Api-Key is as secret as an
	// Authorization): only what the driver writes itself.
	RedirectAny
	// RedirectAnyWithHeaders is RedirectAny keeping the user's headers on a hop to another
	// origin, all but the credentials (StripCredentials: Authorization, Proxy-Authorization,
	// Cookie), as browsers and curl do.
	RedirectAnyWithHeaders
)

// RedirectPolicies are the names ParseRedirectPolicy takes, in the order of the flag's help.
var RedirectPolicies = []string{"same-origin", "none", "any", "any-with-headers"}

func (p RedirectPolicy) String() string {
	if int(p) < len(RedirectPolicies) {
		return RedirectPolicies[p]
	}
	return fmt.Sprintf("RedirectPolicy(%d)", p)
}

// MarshalText writes the policy's name (in a results file's settings).
func (p RedirectPolicy) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads a policy's name.
func (p *RedirectPolicy) UnmarshalText(b []byte) error {
	v, err := ParseRedirectPolicy(string(b))
	*p = v
	return err
}

// ParseRedirectPolicy reads a policy's name.
func ParseRedirectPolicy(s string) (RedirectPolicy, error) {
	for i, n := range RedirectPolicies {
		if s == n {
			return RedirectPolicy(i), nil
		}
	}
	return 0, fmt.Errorf("unknown redirect policy %q%s: use %s", s, suggest.DidYouMean(s, RedirectPolicies), strings.Join(RedirectPolicies, ", "))
}

// SameOrigin reports whether two endpoints are one origin (scheme, host, port).
func SameOrigin(a, b *Endpoint) bool {
	return a.TLS == b.TLS && a.Addr == b.Addr && strings.EqualFold(a.Host, b.Host)
}

// Follows reports whether the policy follows a redirect from one endpoint to another.
func (p RedirectPolicy) Follows(from, to *Endpoint) bool {
	switch p {
	case RedirectAny, RedirectAnyWithHeaders:
		return true
	case RedirectSameOrigin:
		return SameOrigin(from, to)
	}
	return false
}

// nextHeaderLine splits pre-rendered header lines ("Name: value\r\n"…): the first line with its
// line end, its name (before the colon, trimmed) and the lines after it.
func nextHeaderLine(lines []byte) (line, name, rest []byte) {
	line = lines
	if i := bytes.IndexByte(lines, '\n'); i >= 0 {
		line, rest = lines[:i+1], lines[i+1:]
	}
	name, _, _ = bytes.Cut(line, []byte(":"))
	return line, bytes.TrimSpace(name), rest
}

// StripCredentials removes the header lines a request must not carry to another origin
// (Authorization, Proxy-Authorization, Cookie) from pre-rendered header lines.
func StripCredentials(header []byte) []byte {
	out := header[:0:0]
	for len(header) > 0 {
		var line, name []byte
		line, name, header = nextHeaderLine(header)
		if bytes.EqualFold(name, []byte("Authorization")) || bytes.EqualFold(name, []byte("Proxy-Authorization")) ||
			bytes.EqualFold(name, []byte("Cookie")) {
			continue
		}
		out = append(out, line...)
	}
	return out
}
