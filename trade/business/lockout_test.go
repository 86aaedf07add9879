package business_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/internal/testing/racetest"
	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/store/storetest"
)

// TestStrangerCannotLockOwnerOut: wrong passwords counted per user id from any client would let
// a stranger lock any named account out, its owner's right password included; so the count
// is per (user id, client): the stranger is refused on that account
// and, after ten times the limit across accounts, on every account, while the owner from
// another client logs in.
// Mutant checked by hand: loginThrottle keying on the user id alone (client ignored) → "the
// owner, from another client, was refused: too many failed logins for this user id".
func TestStrangerCannotLockOwnerOut(t *testing.T) {
	racetest.SkipSerial(t, serialCalls)
	storetest.Each(t, func(t *testing.T, dsn string) {
		const max = 3
		opts := business.DefaultOptions()
		opts.LoginMaxFailures = max
		_, svc := setup(t, dsn, small(), opts)
		stranger := trade.WithClient(context.Background(), "198.51.100.7:4242")
		owner := trade.WithClient(context.Background(), "203.0.113.9:5000")
		for range max {
			_, err := svc.Login(stranger, "uid:1", "guess")
			wantCode(t, "a wrong password", err, trade.CodeUnauthorized)
		}
		_, err := svc.Login(stranger, "uid:1", "xxx")
		wantCode(t, "the stranger's next try", err, trade.CodeTooManyRequests)
		if _, err := svc.Login(owner, "uid:1", "xxx"); err != nil {
			t.Fatalf("the owner, from another client, was refused: %v", err)
		}
		// across accounts: after clientFactor × max failures the stranger is refused everywhere
		for i := range 10*max - max {
			_, err := svc.Login(stranger, fmt.Sprintf("uid:%d", 2+i%40), "guess")
			if e := trade.AsError(err); e == nil || (e.Code != trade.CodeUnauthorized && e.Code != trade.CodeTooManyRequests) {
				t.Fatalf("guess %d: %v", i, err)
			}
		}
		_, err = svc.Login(stranger, "uid:45", "xxx")
		wantCode(t, "the stranger on a fresh account", err, trade.CodeTooManyRequests)
		if !strings.Contains(err.Error(), "from this client") {
			t.Errorf("refusal says %q, want it to name the client", err)
		}
		if _, err := svc.Login(owner, "uid:45", "xxx"); err != nil {
			t.Fatalf("another client on that account: %v", err)
		}
	})
}
