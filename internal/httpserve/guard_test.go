package httpserve

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestGuardTokenAndHost: the views' guard answers loopback names only ("localhost" and names
// under ".localhost", never one that merely ends in "localhost"), and sets its token cookie only
// for a request that gave the right token: a guess gets 401 and no cookie — else anyone sending
// ?token=guess would get the real token back. Mutants: guard-localhost-no-dot,
// guard-token-cookie-any.
func TestGuardTokenAndHost(t *testing.T) {
	const token = "0123456789abcdef-token"
	h := Guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }),
		GuardOptions{Listen: "127.0.0.1:0", Token: token})
	for _, c := range []struct {
		host, path string
		status     int
		cookie     bool
	}{
		{"localhost", "/?token=" + token, http.StatusOK, true},
		{"app.localhost:8080", "/?token=" + token, http.StatusOK, true},
		{"127.0.0.1", "/?token=guess", http.StatusUnauthorized, false},
		{"127.0.0.1", "/?token=" + token[:5], http.StatusUnauthorized, false},
		{"evillocalhost", "/?token=" + token, http.StatusMisdirectedRequest, false},
		{"evil.localhost.example", "/?token=" + token, http.StatusMisdirectedRequest, false},
	} {
		r := httptest.NewRequest("GET", "http://x"+c.path, nil)
		r.Host = c.host
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		sc := w.Result().Header.Get("Set-Cookie")
		if w.Code != c.status || (sc != "") != c.cookie {
			t.Errorf("Host %s %s → %d Set-Cookie %q, want %d with cookie %v", c.host, c.path, w.Code, sc, c.status, c.cookie)
		}
		if !c.cookie && strings.Contains(sc, token) {
			t.Errorf("Host %s %s: the real token sent back in Set-Cookie %q", c.host, c.path, sc)
		}
	}
}
