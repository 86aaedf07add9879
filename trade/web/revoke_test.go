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
		h, err := web.New(svc, web.Options{SessionSecret: []byte("a shared secret of 32 bytes ....."), Clock: clock, SessionCheckInterval: 10 * time.Second})
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

func newServer(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}
