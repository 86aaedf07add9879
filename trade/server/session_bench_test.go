package server

import (
	"context"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/trade/remote"
)

// BenchmarkSessionStore measures what the choice of session storage costs a web tier behind a
// balancer without stickiness (docs/testbed.md, "Sessions on every tier"). Two web tiers call
// one services host over REST (real TCP, SQLite behind it) and serve the same logged-in page:
//
//   - signed: the session is a signed cookie checked on the tier (HMAC), its revocation check
//     reused for web.DefaultSessionCheckInterval on pages that only read: the design chosen;
//   - shared: the tier asks the services host about the session on every request
//     (SessionCheckInterval < 0), which is what keeping sessions in a store shared through the
//     services host costs at the least: one more round trip per page.
//
// ns/op is one page, the page's own services calls included.
//
//	go test -run '^$' -bench SessionStore -benchtime 3s ./trade/server/
func BenchmarkSessionStore(b *testing.B) {
	log := slog.New(slog.DiscardHandler)
	start := func(mut func(*Config)) *Server {
		cfg := DefaultConfig()
		cfg.DB, cfg.Listen, cfg.Logger = "sqlite:"+filepath.Join(b.TempDir(), "s.db"), "127.0.0.1:0", log
		cfg.ServiceToken = "session-bench-token-0123456789abcdef"
		mut(&cfg)
		s, err := Start(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}
	bsl := start(func(c *Config) { c.Roles, c.LoadIfEmpty = Roles{BSL: true}, smallSpec(1000, 100) })
	addr := bsl.Host().Info().HTTPAddr
	for _, c := range []struct {
		name  string
		every time.Duration // SessionCheckInterval: 0 the default, negative every request
	}{{"signed", 0}, {"shared", -1}} {
		web := start(func(cf *Config) {
			cf.Roles, cf.DB, cf.Access, cf.BSL = Roles{Web: true}, "", remote.REST, addr
			cf.Web.SessionSecret = []byte("a shared secret of 32 bytes .....")
			cf.Web.SessionCheckInterval = c.every
		})
		b.Run(c.name, func(b *testing.B) {
			cl := newClient()
			if code, body := get(b, cl,
				web.URL()+"/daytrader/app?action=login&uid=uid:1&passwd=xxx"); code != http.StatusOK || !strings.Contains(body, "Welcome uid:1") {
				b.Fatalf("login: %d", code)
			}
			page := web.URL() + "/daytrader/app?action=quotes&symbols=s:1"
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if code, _ := get(b, cl, page); code != http.StatusOK {
					b.Fatalf("page: %d", code)
				}
			}
		})
	}
}
