package web_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/web"
)

// TestTradePostAfterLogoutElsewhereRefused: a POST to /trade/buy on tier B, with a copy of a
// cookie logged out on tier A and the page's CSRF token, is refused at once, even though B
// checked that session a moment earlier and may reuse that check for reads. Nothing is bought.
// (TestSessionCheckReuseIsBounded covers the DayTrader contract, whose buy is a GET.)
//
// Mutant killed: the "fresh" check limited to DayTrader's mutating actions (the method
// check dropped from `fresh := (r.Method != GET && != HEAD) || …` in web.go): the POST is
// accepted within SessionCheckInterval of B's last check.
func TestTradePostAfterLogoutElsewhereRefused(t *testing.T) {
	ctx := context.Background()
	svc := business.New(smallStore(t), business.Options{})
	now := time.Now() // a fixed clock: B's check of the session stays within its interval
	tier := func() string {
		h, err := web.New(svc, web.Options{SessionSecret: []byte("a shared secret of 32 bytes ....."),
			Clock: func() time.Time { return now }, SessionCheckInterval: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		return newServer(t, h)
	}
	a, b := tier(), tier()
	_, _, cookie := cookieRequest(t, "POST", a+"/trade/login", "", url.Values{"uid": {"uid:1"}, "passwd": {"xxx"}})
	if cookie == "" {
		t.Fatal("no session cookie after login on tier a")
	}
	// B checks the session (and remembers the check) and hands out the form's token.
	_, page, _ := cookieRequest(t, "GET", b+"/trade/quotes?symbols=s:1", cookie, nil)
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if m == nil || !strings.Contains(page, "uid:1") {
		t.Fatalf("tier b does not serve the session a quotes page with a form token:\n%.2000s", page)
	}
	before, err := svc.GetHoldings(ctx, "uid:1")
	if err != nil {
		t.Fatal(err)
	}
	if _, body, _ := cookieRequest(t, "GET", a+"/daytrader/app?action=logout", cookie, nil); !strings.Contains(body, "Login") {
		t.Fatalf("logout on tier a:\n%.2000s", body)
	}
	code, body, _ := cookieRequest(t, "POST", b+"/trade/buy", cookie, url.Values{"symbol": {"s:1"}, "quantity": {"1"}, "csrf": {m[1]}})
	if !strings.Contains(body, "Your session has ended") || strings.Contains(body, "has been submitted") {
		t.Fatalf("tier b let a logged-out cookie POST a buy: %d\n%.2000s", code, body)
	}
	after, err := svc.GetHoldings(ctx, "uid:1")
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Fatalf("holdings went from %d to %d after a refused buy", len(before), len(after))
	}
}

// cookieRequest sends one request carrying the session cookie value (if any) as a copy of a
// browser's cookie would be sent to any tier, with form as its urlencoded body (if not nil), and
// returns the status, the body and the session cookie the response sets ("" if none).
func cookieRequest(t *testing.T, method, u, cookie string, form url.Values) (int, string, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, u, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if cookie != "" {
		req.Header.Set("Cookie", web.CookieName+"="+cookie)
	}
	resp, err := (&http.Transport{}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	for _, c := range resp.Cookies() {
		if c.Name == web.CookieName {
			return resp.StatusCode, string(out), c.Value
		}
	}
	return resp.StatusCode, string(out), ""
}
