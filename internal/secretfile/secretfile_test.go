package secretfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func valid(string) error { return nil }

// TestReadRefusesOthersFiles is finding 10 of issue 35: a 0600 token file owned by another user
// was accepted (whoever owns it chose the token, and can read it). Now it is refused as ssh
// refuses such a key; a file of one's own, 0600, is read. The other user is made by chown, so
// the test needs root (CI's containers run as root) and is skipped otherwise. Mutant:
// secretfile-owner-unchecked.
func TestReadRefusesOthersFiles(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "mine")
	tok, err := Create(mine)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Read(mine, "token", valid); err != nil || got != tok {
		t.Fatalf("own 0600 file: %q %v", got, err)
	}
	os.Chmod(mine, 0o644)
	if _, err := Read(mine, "token", valid); err == nil || !strings.Contains(err.Error(), "readable by others") {
		t.Errorf("a 0644 file: %v", err)
	}
	// the group is others too (mutant secretfile-group-readable)
	os.Chmod(mine, 0o640)
	if _, err := Read(mine, "token", valid); err == nil || !strings.Contains(err.Error(), "readable by others") {
		t.Errorf("a group-readable 0640 file: %v (want it refused)", err)
	}
	if os.Getuid() != 0 {
		t.Skip("making a file another user owns needs root")
	}
	theirs := filepath.Join(dir, "theirs")
	if _, err := Create(theirs); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(theirs, 65534, 65534); err != nil { // nobody
		t.Fatal(err)
	}
	if _, err := Read(theirs, "token", valid); err == nil || !strings.Contains(err.Error(), "owned by user 65534") {
		t.Errorf("a 0600 file owned by another user: %v (want it refused)", err)
	}
	big := filepath.Join(dir, "big")
	os.WriteFile(big, make([]byte, 2<<20), 0o600)
	if _, err := Read(big, "token", valid); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("a 2 MiB token file: %v", err)
	}
}
