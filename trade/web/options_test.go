package web_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/web"
)

// TestOptionsOneCheck: the web tier's settings are defaulted and checked in one place
// (Options.SetDefaults, Options.Validate), which New applies, so a session lifetime too short to
// read two pages is refused by New itself as it is by a server embedding these Options and by
// serve's --session-ttl — once the web tier refused only negative lifetimes and the server
// anything under a minute. Mutant web-session-ttl-unchecked (Validate's SessionTTL case off)
// fails it.
func TestOptionsOneCheck(t *testing.T) {
	var o web.Options
	if err := o.Validate(); err != nil {
		t.Fatalf("zero options: %v", err)
	}
	o.SetDefaults()
	if o.SessionTTL != web.DefaultSessionTTL || o.OrdersLimit != trade.DefaultOrdersLimit || o.StreamLimit != web.DefaultStreamLimit {
		t.Fatalf("defaults: %+v", o)
	}
	for field, bad := range map[string]web.Options{
		"SessionTTL":      {SessionTTL: 30 * time.Second},
		"SessionTTL ":     {SessionTTL: -time.Minute},
		"OrdersLimit":     {OrdersLimit: trade.MaxOrdersLimit + 1},
		"SessionSecret":   {SessionSecret: []byte("short")},
		"StreamPerClient": {StreamPerClient: -1},
	} {
		var se *setting.Error
		if err := bad.Validate(); !errors.As(err, &se) || se.Field != strings.TrimSpace(field) {
			t.Errorf("%s: Validate() = %v, want a setting.Error naming it", field, err)
		}
		if _, err := web.New(fakeService{}, bad); !errors.As(err, &se) {
			t.Errorf("%s: New accepted %+v: %v", field, bad, err)
		}
	}
	if _, err := web.New(fakeService{}, web.Options{SessionTTL: web.MinSessionTTL}); err != nil {
		t.Errorf("the shortest lifetime allowed: %v", err)
	}
}

// fakeService is a trade.Service New only holds: no page is served here.
type fakeService struct{ trade.Service }
