// Package secretfile reads and writes the kit's shared secrets (the service token, the NATS
// token) as files only their owner can read: one rule for every secret, so none is left
// world-readable or guessable.
package secretfile

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"
	"strings"

	"github.com/tradebench/tradebench/internal/untrusted"
)

// New returns a random secret (32 bytes, base64url).
func New() string {
	var b [32]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// Read reads the secret in path (surrounding whitespace trimmed) and checks it with valid. A
// file that others can read, or that another user owns (whoever owns it chose the secret, and
// can read it: as ssh refuses such a key), is refused: what names the secret in the error
// ("service token"). The file is read within untrusted.MaxSmallFile.
func Read(path, what string, valid func(string) error) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat() // the file opened, not whatever the path names by now
	if err != nil {
		return "", err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("%s file %s is readable by others (mode %v): chmod 600 it", what, path, fi.Mode().Perm())
	}
	if uid, ok := owner(fi); ok && uid != os.Getuid() {
		return "", fmt.Errorf("%s file %s is owned by user %d, not by you (user %d): use a file of your own (chown it, or create it as yourself)", what, path, uid, os.Getuid())
	}
	b, err := untrusted.Read(f, untrusted.MaxSmallFile, what+" file "+path)
	if err != nil {
		return "", err
	}
	t := strings.TrimSpace(string(b))
	if err := valid(t); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// Create writes a new random secret to path, readable only by this user (0600), and returns
// it. It does not overwrite an existing file.
func Create(path string) (string, error) {
	t := New()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString(t + "\n"); err != nil {
		f.Close()
		return "", err
	}
	return t, f.Close()
}
