package server

import (
	"context"
	"log/slog"
	"net/http"
	"path/filepath"
	"testing"
)

// TestBehindTLSSecureCookies: the web tier's cookies were never Secure, so a session cookie
// could travel over plain HTTP. With BehindTLS (serve --behind-tls, for a TLS-terminating
// proxy) every cookie it sets is Secure; without it, none is (plain-HTTP benchmark runs keep
// working).
// Mutant checked by hand: Web.SecureCookies not passed to web.New → "behind TLS
// true: cookie tb_session Secure=false".
func TestBehindTLSSecureCookies(t *testing.T) {
	for _, behind := range []bool{true, false} {
		cfg := DefaultConfig()
		cfg.DB, cfg.Listen = "sqlite:"+filepath.Join(t.TempDir(), "c.db"), "127.0.0.1:0"
		cfg.LoadIfEmpty, cfg.Logger, cfg.Web.SecureCookies = smallSpec(5, 5), slog.New(slog.DiscardHandler), behind
		s, err := Start(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := c.Get(s.URL() + "/daytrader/app?action=login&uid=uid:1&passwd=xxx")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		cs := resp.Cookies()
		if len(cs) == 0 {
			t.Fatalf("login set no cookie")
		}
		for _, ck := range cs {
			if ck.Secure != behind {
				t.Errorf("behind TLS %v: cookie %s Secure=%v", behind, ck.Name, ck.Secure)
			}
		}
		s.Close()
	}
}
