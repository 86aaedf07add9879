package business

import (
	"sync"
	"time"

	"github.com/tradebench/tradebench/trade"
)

// loginThrottle counts wrong passwords per user id in fixed windows. Unknown user ids are
// counted like real ones, so the throttle does not tell them apart either. It is per process:
// N services hosts allow N times the failures.
type loginThrottle struct {
	max int
	now func() time.Time

	mu sync.Mutex
	m  map[string]*failures
}

type failures struct {
	start time.Time
	n     int
}

// maxTracked bounds the map: beyond it, windows that have passed are swept out first.
const maxTracked = 100_000

func newLoginThrottle(max int, now func() time.Time) *loginThrottle {
	if max <= 0 {
		return nil
	}
	return &loginThrottle{max: max, now: now, m: map[string]*failures{}}
}

// retryAfter is how long userID must wait, or 0 if it may try now.
func (t *loginThrottle) retryAfter(userID string) time.Duration {
	if t == nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.m[userID]
	if f == nil || f.n < t.max {
		return 0
	}
	left := f.start.Add(trade.LoginWindow).Sub(t.now())
	if left <= 0 {
		delete(t.m, userID)
		return 0
	}
	return left
}

// fail counts a wrong password (or unknown user id).
func (t *loginThrottle) fail(userID string) {
	if t == nil {
		return
	}
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.m[userID]
	if f == nil || now.Sub(f.start) >= trade.LoginWindow {
		if f == nil && len(t.m) >= maxTracked {
			for k, v := range t.m {
				if now.Sub(v.start) >= trade.LoginWindow {
					delete(t.m, k)
				}
			}
		}
		f = &failures{start: now}
		t.m[userID] = f
	}
	f.n++
}
