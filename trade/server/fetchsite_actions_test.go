package server

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/tradebench/tradebench/trade"
)

// TestSameSiteRefusedOnEveryStateChange: every DayTrader action that changes state — not only
// buy (TestSameSiteLinksCannotTrade) — is refused with 403 and changes nothing when a browser
// says it came from another site of the same host (Sec-Fetch-Site: same-site), and is served
// when the header is absent (a script). Each action's effect is read back from the service.
// Mutants web-fetchsite-{sell,register,update-profile,logout,login}: that action's route not
// marked as changing state (the same-site request then served and its change made).
func TestSameSiteRefusedOnEveryStateChange(t *testing.T) {
	s := startTest(t, 5, 5)
	svc := s.Service()
	ctx := context.Background()
	c := newClient()
	base := s.URL() + "/daytrader/app"
	send := func(site string, form url.Values) (int, string) {
		t.Helper()
		// a GET link, as a page elsewhere would embed it: POSTs from another site are refused
		// earlier, by the cross-origin protection every POST gets
		req, err := http.NewRequest(http.MethodGet, base+"?"+form.Encode(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if site != "" {
			req.Header.Set("Sec-Fetch-Site", site)
		}
		return do(t, c, req)
	}
	login := url.Values{"action": {"login"}, "uid": {"uid:1"}, "passwd": {"xxx"}}
	account := func() trade.Account {
		a, err := svc.GetAccountData(ctx, "uid:1")
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	holdings := func() int {
		hs, err := svc.GetHoldings(ctx, "uid:1")
		if err != nil {
			t.Fatal(err)
		}
		return len(hs)
	}
	fullName := func() string {
		p, err := svc.GetAccountProfileData(ctx, "uid:1")
		if err != nil {
			t.Fatal(err)
		}
		return p.FullName
	}
	registered := func() bool {
		_, err := svc.GetAccountData(ctx, "fetchsite-user")
		return err == nil
	}
	if code, body := send("", login); code != 200 {
		t.Fatalf("login: %d %.300s", code, body)
	}
	hs, err := svc.GetHoldings(ctx, "uid:1")
	if err != nil || len(hs) == 0 {
		t.Fatalf("uid:1 has no holding to sell (%v)", err)
	}
	profile := url.Values{"action": {"update_profile"}, "userID": {"uid:1"}, "password": {"xxx"}, "cpassword": {"xxx"},
		"fullname": {"Changed By Fetch"}, "address": {"1 Road"}, "email": {"u1@example.com"}, "creditcard": {"123"}}
	register := url.Values{"action": {"register"}, "user id": {"fetchsite-user"}, "passwd": {"pw12345"}, "confirm passwd": {"pw12345"},
		"Full Name": {"F S"}, "snail mail": {"2 Road"}, "email": {"fs@example.com"}, "money": {"10000"}, "Credit Card Number": {"456"}}
	b2i := func(b bool) int64 {
		if b {
			return 1
		}
		return 0
	}
	cases := []struct {
		action string
		form   url.Values
		state  func() int64 // what the action changes, read back from the service
	}{
		{"sell", url.Values{"action": {"sell"}, "holdingID": {strconv.FormatInt(hs[0].HoldingID, 10)}}, func() int64 { return int64(holdings()) }},
		{"update_profile", profile, func() int64 { return b2i(fullName() == "Changed By Fetch") }},
		{"logout", url.Values{"action": {"logout"}}, func() int64 { return account().LogoutCount }},
		{"login", login, func() int64 { return account().LoginCount }},
		{"register", register, func() int64 { return b2i(registered()) }},
	}
	for _, tc := range cases {
		before := tc.state()
		code, body := send("same-site", tc.form)
		if code != http.StatusForbidden {
			t.Errorf("same-site %s: %d, want 403\n%.300s", tc.action, code, body)
		}
		if tc.state() != before {
			t.Fatalf("same-site %s: refused or not, the change was made", tc.action)
		}
		if code, body := send("", tc.form); code != 200 {
			t.Fatalf("%s without Sec-Fetch-Site: %d\n%.300s", tc.action, code, body)
		}
		if tc.state() == before {
			t.Fatalf("%s without Sec-Fetch-Site: no change made (the test cannot tell a refusal)", tc.action)
		}
	}
}
