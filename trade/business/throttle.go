package business

import (
	"sync"
	"time"

	"github.com/tradebench/tradebench/trade"
)

// loginThrottle counts wrong passwords in fixed windows, per (user id, client) and per client
// across user ids (the client is trade.ClientOf the call: the web tier's visitor, carried by
// the transports). Counting per user id alone would let a stranger lock any named account out,
// its owner's right password included; so a guesser is slowed on one account (max) and
// across accounts (clientFactor × max) while the owner, from another address, logs in. A call
// with no client known is counted per user id. Unknown user ids are counted like
// real ones, so the throttle does not tell them apart either. It is per process: N services
// hosts allow N times the failures.
type loginThrottle struct {
	max int
	now func() time.Time

	mu sync.Mutex
	m  map[throttleKey]*failures
}

// throttleKey is one counter: a user id from a client, or (user "") a client across user ids.
type throttleKey struct{ user, client string }

type failures struct {
	start time.Time
	n     int
}

// clientFactor is how many more failures one client may make across all user ids than on one.
const clientFactor = 10

// maxTracked bounds the map: beyond it, windows that have passed are swept out first.
const maxTracked = 100_000

func newLoginThrottle(max int, now func() time.Time) *loginThrottle {
	if max <= 0 {
		return nil
	}
	return &loginThrottle{max: max, now: now, m: map[throttleKey]*failures{}}
}

// retryAfter is how long userID must wait from client, or 0 if it may try now; perClient says
// the client's limit across user ids is the one reached.
func (t *loginThrottle) retryAfter(userID, client string) (wait time.Duration, perClient bool) {
	if t == nil {
		return 0, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if client != "" {
		if w := t.left(throttleKey{client: client}, clientFactor*t.max); w > 0 {
			return w, true
		}
	}
	return t.left(throttleKey{user: userID, client: client}, t.max), false
}

func (t *loginThrottle) left(k throttleKey, max int) time.Duration {
	f := t.m[k]
	if f == nil || f.n < max {
		return 0
	}
	left := f.start.Add(trade.LoginWindow).Sub(t.now())
	if left <= 0 {
		delete(t.m, k)
		return 0
	}
	return left
}

// fail counts a wrong password (or unknown user id) for userID from client.
func (t *loginThrottle) fail(userID, client string) {
	if t == nil {
		return
	}
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.count(throttleKey{user: userID, client: client}, now)
	if client != "" {
		t.count(throttleKey{client: client}, now)
	}
}

func (t *loginThrottle) count(k throttleKey, now time.Time) {
	f := t.m[k]
	if f == nil || now.Sub(f.start) >= trade.LoginWindow {
		if f == nil && len(t.m) >= maxTracked {
			for k, v := range t.m {
				if now.Sub(v.start) >= trade.LoginWindow {
					delete(t.m, k)
				}
			}
		}
		f = &failures{start: now}
		t.m[k] = f
	}
	f.n++
}
