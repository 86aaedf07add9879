package web_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/web"
)

// TestSessionCheckReuseIsBounded: a tier may reuse its check that a session was not ended for
// SessionCheckInterval on pages that only read, so after a logout on another tier a copy of
// the cookie can read there for at most that long; anything that changes state is refused at
// once, and the reads end when the interval has passed.
func TestSessionCheckReuseIsBounded(t *testing.T) {
	svc := business.New(smallStore(t), business.Options{})
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	tier := func() string {
		h, err := web.New(svc, web.Options{SessionSecret: []byte("a shared secret of 32 bytes ....."), Clock: clock,
			SessionCheckInterval: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		s := newServer(t, h)
		return s
	}
	a, b := tier(), tier()
	get := func(url string, cookie string) (int, string, string) {
		return cookieRequest(t, "GET", url, cookie, nil)
	}
	_, _, cookie := get(a+"/daytrader/app?action=login&uid=uid:1&passwd=xxx", "")
	if cookie == "" {
		t.Fatal("no session cookie after login")
	}
	if _, body, _ := get(b+"/daytrader/app?action=home", cookie); !strings.Contains(body, "Welcome uid:1") {
		t.Fatal("tier b does not accept the session") // and b now remembers its check
	}
	if _, body, _ := get(a+"/daytrader/app?action=logout", cookie); !strings.Contains(body, "Login") {
		t.Fatal("logout on tier a")
	}
	if _, body, _ := get(a+"/daytrader/app?action=home", cookie); strings.Contains(body, "Welcome uid:1") {
		t.Fatal("the tier that logged out still serves the session")
	}
	if _, body, _ := get(b+"/daytrader/app?action=home", cookie); !strings.Contains(body, "Welcome uid:1") {
		t.Fatal("within the interval tier b should still serve reads from its last check (the documented bound)")
	}
	mu.Lock()
	now = now.Add(10 * time.Second)
	mu.Unlock()
	if _, body, _ := get(b+"/daytrader/app?action=home", cookie); strings.Contains(body, "Welcome uid:1") {
		t.Fatal("tier b still serves reads after the interval")
	}

	// a change of state is checked every time, whatever tier b remembers
	_, _, cookie = get(a+"/daytrader/app?action=login&uid=uid:1&passwd=xxx", "")
	if _, body, _ := get(b+"/daytrader/app?action=home", cookie); !strings.Contains(body, "Welcome uid:1") {
		t.Fatal("tier b does not accept the new session")
	}
	get(a+"/daytrader/app?action=logout", cookie)
	if _, body, _ := get(b+"/daytrader/app?action=buy&symbol=s:1&quantity=1", cookie); !strings.Contains(body, "Your session has ended") {
		t.Fatalf("tier b let a copy of the cookie buy after the logout:\n%.2000s", body)
	}
}

// TestNewLoginElsewhereOutlivesAnOldCheck: behind a balancer with no stickiness a user logs in
// on tier a, reads on tier b (b remembers the logout count it saw), logs out on a and logs in
// again there: the new session, stamped with the higher count, must be served by b at once, not
// refused because of b's older check (the daytrader-mix scenario through haproxy failed ~2% of
// its pages so before). Mutant: the reused check refusing any other count
// (scripts/mutants.d/testbed-session-stale-check), seen failing here.
func TestNewLoginElsewhereOutlivesAnOldCheck(t *testing.T) {
	svc := business.New(smallStore(t), business.Options{})
	tier := func() string {
		h, err := web.New(svc, web.Options{SessionSecret: []byte("a shared secret of 32 bytes ....."), SessionCheckInterval: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		return newServer(t, h)
	}
	a, b := tier(), tier()
	login := func() string {
		_, _, cookie := cookieRequest(t, "GET", a+"/daytrader/app?action=login&uid=uid:1&passwd=xxx", "", nil)
		if cookie == "" {
			t.Fatal("no session cookie after login")
		}
		return cookie
	}
	get := func(url string, cookie string) string {
		_, body, _ := cookieRequest(t, "GET", url, cookie, nil)
		return body
	}
	cookie := login()
	if body := get(b+"/daytrader/app?action=home", cookie); !strings.Contains(body, "Welcome uid:1") {
		t.Fatal("tier b does not accept the session")
	}
	get(a+"/daytrader/app?action=logout", cookie)
	cookie = login()
	for i := 0; i < 2; i++ {
		if body := get(b+"/daytrader/app?action=home", cookie); !strings.Contains(body, "Welcome uid:1") {
			t.Fatalf("tier b refused the new session after its older check (request %d):\n%.300s", i+1, body)
		}
	}
}

func newServer(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}
