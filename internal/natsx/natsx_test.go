package natsx

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolveToken: the environment wins; a token file others can read is refused; with none,
// a broker's process writes a new one readable by its owner only (0600), and a client's gets
// ErrNoToken naming what to set.
// Mutant checked by hand: secretfile.Create with mode 0644 → "generated token file mode -rw-r--r--".
func TestResolveToken(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv(EnvToken, "")
	if _, _, _, err := ResolveToken("", false); !errors.Is(err, ErrNoToken) || !strings.Contains(err.Error(), EnvToken) {
		t.Fatalf("no token, not generating: %v", err)
	}
	tok, path, created, err := ResolveToken("", true)
	if err != nil || path != DefaultTokenFile || !created || ValidateToken(tok) != nil {
		t.Fatalf("generated %q in %q (created %v): %v", tok, path, created, err)
	}
	if fi, _ := os.Stat(DefaultTokenFile); fi.Mode().Perm() != 0o600 {
		t.Fatalf("generated token file mode %v", fi.Mode())
	}
	if again, _, created, err := ResolveToken("", true); err != nil || again != tok || created {
		t.Fatalf("a second process got %q (created %v), %v; want the file's token", again, created, err)
	}
	open := filepath.Join(t.TempDir(), "open")
	os.WriteFile(open, []byte(tok), 0o644)
	if _, _, _, err := ResolveToken(open, false); err == nil || !strings.Contains(err.Error(), "readable by others") {
		t.Fatalf("a world-readable token file: %v", err)
	}
	t.Setenv(EnvToken, "short")
	if _, _, _, err := ResolveToken("", false); err == nil {
		t.Fatal("a short token in the environment was accepted")
	}
}
