package driver

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tradebench/tradebench/internal/untrusted"
)

// TestQuickBody: --body's text is sent as given, @FILE sends the file's bytes, an empty body or
// file is no body, a missing file names its path, and a file past MaxQuickBody is refused before
// it is held in memory whole. Mutant (quick-body-file-as-text): the @ prefix not recognised —
// the body would be the text "@FILE".
func TestQuickBody(t *testing.T) {
	dir := t.TempDir()
	file, empty, big := filepath.Join(dir, "req.xml"), filepath.Join(dir, "empty"), filepath.Join(dir, "big")
	os.WriteFile(file, []byte("<a>\x00</a>"), 0o600)
	os.WriteFile(empty, nil, 0o600)
	f, _ := os.Create(big)
	f.Truncate(MaxQuickBody + 1) // sparse: no disk written
	f.Close()
	for arg, want := range map[string]string{"x=1": "x=1", "@" + file: "<a>\x00</a>", "": "", "@" + empty: ""} {
		b, err := QuickBody(arg)
		if err != nil || string(b) != want || (want == "") != (b == nil) {
			t.Errorf("QuickBody(%q) = %q, %v; want %q", arg, b, err, want)
		}
	}
	if _, err := QuickBody("@" + filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := QuickBody("@" + big); !errors.Is(err, untrusted.ErrTooLarge) {
		t.Errorf("a file past the bound: %v", err)
	}
}
