package driver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadLiveToken: a token file of the user's own with a long enough token is read (whitespace
// trimmed); a short token, or a file others can read, is refused.
// Mutant (live-token-short-accepted): ReadLiveToken without the length check.
func TestReadLiveToken(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if tok, err := ReadLiveToken(write("ok", "0123456789abcdef\n", 0o600)); err != nil || tok != "0123456789abcdef" {
		t.Errorf("a good token: %q, %v", tok, err)
	}
	if _, err := ReadLiveToken(write("short", "0123456789", 0o600)); err == nil || !strings.Contains(err.Error(), "at least 16") {
		t.Errorf("a short token: %v", err)
	}
	if _, err := ReadLiveToken(write("open", "0123456789abcdef", 0o644)); err == nil {
		t.Error("a token file others can read was accepted")
	}
}
