package svcauth

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolve: a services host with no token configured generates one into a file only its
// user can read and says where; the next process finds it there; the environment wins; a file
// others can read is refused; a client with nothing configured is told so.
func TestResolve(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv(EnvToken, "")
	if _, src, _, err := Resolve("", false); err != nil || src != NotConfigured {
		t.Fatalf("a client with nothing configured: %v %v", src, err)
	}
	tok, src, path, err := Resolve("", true)
	if err != nil || src != Generated || path != DefaultTokenFile || Validate(tok) != nil {
		t.Fatalf("generate: %q %v %q %v", tok, src, path, err)
	}
	fi, err := os.Stat(DefaultTokenFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("generated file: %v, mode %v; want 0600", err, fi.Mode().Perm())
	}
	again, src, _, err := Resolve("", true)
	if err != nil || src != FromFile || again != tok {
		t.Fatalf("second process: %q %v %v; want the same token from the file", again, src, err)
	}
	t.Setenv(EnvToken, "from-the-environment-0123456789")
	if env, src, _, _ := Resolve(DefaultTokenFile, true); src != FromEnv || env != "from-the-environment-0123456789" {
		t.Fatalf("the environment does not win: %q %v", env, src)
	}
	t.Setenv(EnvToken, "short")
	if _, _, _, err := Resolve("", true); err == nil {
		t.Fatal("a 5-character token was accepted")
	}
	t.Setenv(EnvToken, "")
	open := filepath.Join(t.TempDir(), "open")
	os.WriteFile(open, []byte(tok), 0o644)
	if _, _, _, err := Resolve(open, true); err == nil || !strings.Contains(err.Error(), "readable by others") {
		t.Fatalf("a world-readable token file: %v", err)
	}
	if _, _, _, err := Resolve(filepath.Join(t.TempDir(), "missing"), true); err == nil {
		t.Fatal("a named file that does not exist was accepted")
	}
}

func TestRequireHTTP(t *testing.T) {
	const tok = "a-token-that-is-long-enough"
	h := RequireHTTP(tok, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }),
		func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(401) }, "/healthz")
	for _, c := range []struct {
		path, auth string
		want       int
	}{
		{"/x", "", 401}, {"/x", "Bearer " + tok + "x", 401}, {"/x", "Bearer " + tok[:10], 401}, {"/x", tok, 401},
		{"/x", "bearer " + tok, 401}, {"/x", "Bearer " + tok, 204}, {"/healthz", "", 204},
	} {
		r := httptest.NewRequest("GET", c.path, nil)
		if c.auth != "" {
			r.Header.Set("Authorization", c.auth)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != c.want {
			t.Errorf("%s with %q: %d, want %d", c.path, c.auth, w.Code, c.want)
		}
	}
	// the client side: the header is added on a copy, the caller's request is untouched
	var got string
	rt := Client{Token: tok}.Transport(roundTripFunc(func(r *http.Request) (*http.Response, error) {
		got = r.Header.Get("Authorization")
		return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
	}))
	req, _ := http.NewRequest("GET", "http://x/", nil)
	if _, err := rt.RoundTrip(req); err != nil || got != "Bearer "+tok || req.Header.Get("Authorization") != "" {
		t.Fatalf("client transport sent %q (err %v), caller's request now %q", got, err, req.Header.Get("Authorization"))
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// BenchmarkTokenCost is what the service token adds to one call, without the network: the
// host's check of the header and the client's copy of the request with the header added.
//
//	go test -run '^$' -bench TokenCost ./trade/remote/svcauth/
func BenchmarkTokenCost(b *testing.B) {
	const tok = "bench-service-token-0123456789abcdef"
	b.Run("server-check", func(b *testing.B) {
		ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
		h := RequireHTTP(tok, ok, func(http.ResponseWriter, *http.Request) {
			b.Fatal("refused")
		})
		r := httptest.NewRequest("POST", "/api/v1/quotes/s:1", nil)
		r.Header.Set("Authorization", "Bearer "+tok)
		r.Header.Set("Content-Type", "application/json")
		b.ReportAllocs()
		for b.Loop() {
			h.ServeHTTP(nil, r)
		}
	})
	b.Run("client-transport", func(b *testing.B) {
		resp := &http.Response{StatusCode: 200, Body: http.NoBody}
		rt := Client{Token: tok}.Transport(roundTripFunc(func(*http.Request) (*http.Response, error) { return resp, nil }))
		r, _ := http.NewRequest("POST", "http://127.0.0.1:8081/api/v1/quotes/s:1", nil)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json")
		b.ReportAllocs()
		for b.Loop() {
			rt.RoundTrip(r)
		}
	})
}
