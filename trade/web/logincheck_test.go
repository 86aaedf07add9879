package web_test

import (
	"context"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/web"
)

// accountReads counts the calls of GetAccountData: the session check's question. It embeds
// the service itself, so the pages find its optional one-statement reads as they would.
type accountReads struct {
	*business.Service
	n atomic.Int64
}

func (s *accountReads) GetAccountData(ctx context.Context, userID string) (trade.Account, error) {
	s.n.Add(1)
	return s.Service.GetAccountData(ctx, userID)
}

// TestLoginCountsAsSessionCheck: a login reads the account's logout count in its own
// transaction, so the pages that only read right after it do not ask the services again
// within SessionCheckInterval; a request that may change something still asks (fresh).
// Mutant web-login-check-not-kept (the put in startSession dropped): the home page after the
// login asks once.
func TestLoginCountsAsSessionCheck(t *testing.T) {
	svc := &accountReads{Service: business.New(smallStore(t), business.Options{})}
	var _ trade.Service = svc
	h, err := web.New(svc, web.Options{SessionSecret: []byte("a shared secret of 32 bytes ....."), SessionCheckInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	base := newServer(t, h)
	_, body, cookie := cookieRequest(t, "POST", base+"/daytrader/app", "", url.Values{"action": {"login"}, "uid": {"uid:1"}, "passwd": {"xxx"}})
	if cookie == "" || !strings.Contains(body, "uid:1") {
		t.Fatalf("login: no session:\n%.1000s", body)
	}
	for _, action := range []string{"home", "portfolio", "account", "quotes&symbols=s:1"} {
		svc.n.Store(0)
		if _, body, _ := cookieRequest(t, "GET", base+"/daytrader/app?action="+action, cookie, nil); !strings.Contains(body, "Logoff") {
			t.Fatalf("%s after login: not a logged-in page:\n%.1000s", action, body)
		}
		if n := svc.n.Load(); n != 0 {
			t.Errorf("%s right after a login asked the services %d times to check the session, want 0", action, n)
		}
	}
	svc.n.Store(0)
	// a mutating action still checks
	cookieRequest(t, "GET", base+"/daytrader/app?action=buy&symbol=s:1&quantity=1", cookie, nil)
	if n := svc.n.Load(); n == 0 {
		t.Errorf("a buy after the login did not check the session")
	}
}
