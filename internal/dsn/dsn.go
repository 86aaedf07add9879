// Package dsn is the one reading of a database name every tradebench store takes (StockTrader's,
// CachePerf's, the command line's checks), and the one way a DSN is shown: with its password
// hidden, in errors, logs, progress lines and the config page alike.
package dsn

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Drivers a DSN selects.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// Example is what a message suggests when a DSN is wrong.
const Example = "sqlite:PATH (e.g. sqlite:tradebench.db) or postgres://user@host/dbname"

// Parse returns the driver a DSN selects and the DSN to hand the driver: "sqlite:PATH" (also
// "sqlite://PATH") and bare "*.db" paths select sqlite (the driver gets PATH, which may carry a
// ?query of SQLite options), "postgres://…" and "postgresql://…" select postgres (the driver
// gets the URL as given). Errors show the DSN redacted.
func Parse(s string) (driver, target string, err error) {
	switch {
	case strings.HasPrefix(s, "sqlite:"):
		target = strings.TrimPrefix(strings.TrimPrefix(s, "sqlite:"), "//")
		if target == "" {
			return "", "", fmt.Errorf("sqlite DSN %q has no file path (e.g. sqlite:tradebench.db)", s)
		}
		return SQLite, target, nil
	case strings.HasPrefix(s, "postgres://"), strings.HasPrefix(s, "postgresql://"):
		return Postgres, s, nil
	case strings.HasSuffix(strings.SplitN(s, "?", 2)[0], ".db"):
		return SQLite, s, nil
	case s == "":
		return "", "", fmt.Errorf("no database given: use %s", Example)
	}
	return "", "", fmt.Errorf("unknown database %q: use %s", Redact(s), Example)
}

// ErrNoDatabase is Need's error for a SQLite file that is not there.
var ErrNoDatabase = errors.New("no such database")

// ErrNoDir is Need's error for a SQLite file whose directory is not there.
var ErrNoDir = errors.New("does not exist")

// Need checks a database before anything opens it, so that a command that fails creates nothing
// (opening a SQLite path creates the file). Without create the SQLite file must exist: serving,
// resetting or auditing a database that is not there is bad input, not an empty database to
// leave behind (ErrNoDatabase). With create (a load) its directory must exist (ErrNoDir), except
// makeDir, which is made (the default working directory, as 'run' makes it; "" = none).
// In-memory SQLite and PostgreSQL pass: the server says. A DSN that does not parse passes too:
// Parse, called first, reports it.
func Need(db string, create bool, makeDir string) error {
	driver, target, err := Parse(db)
	if err != nil || driver != SQLite {
		return nil
	}
	path := strings.SplitN(target, "?", 2)[0]
	if path == ":memory:" || strings.HasPrefix(path, "file::memory:") {
		return nil
	}
	if !create {
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("%s: %w", Redact(db), ErrNoDatabase)
		}
		return nil
	}
	dir := filepath.Dir(path)
	switch _, err := os.Stat(dir); {
	case err == nil:
		return nil
	case makeDir != "" && filepath.Clean(dir) == filepath.Clean(makeDir):
		return os.MkdirAll(dir, 0o755)
	}
	return fmt.Errorf("%s: the directory %s %w", Redact(db), dir, ErrNoDir)
}

// Redact hides the secrets in a DSN or a URL, the one redaction for every URL the kit prints or
// stores (a target, a metrics endpoint, a broker, a database): each URL's user password
// ("postgres://u:xxxxx@h/db", every URL of a comma-separated list) and the value of every query
// parameter that names a secret (password=, sslpassword=, passwd=, pwd=, token=, secret=,
// api_key=…, matched after percent-decoding the name, so pass%77ord= is caught too). Anything
// else is returned unchanged.
func Redact(s string) string {
	const hidden = "xxxxx"
	for from := 0; ; {
		i := strings.Index(s[from:], "://")
		if i < 0 {
			break
		}
		i += from
		auth := s[i+3:]
		if end := strings.IndexAny(auth, "/?#, "); end >= 0 {
			auth = auth[:end]
		}
		if at := strings.LastIndex(auth, "@"); at >= 0 {
			if c := strings.Index(auth[:at], ":"); c >= 0 {
				s = s[:i+3+c+1] + hidden + s[i+3+at:]
				auth = s[i+3 : i+3+c+1+len(hidden)+1]
			}
		}
		from = i + 3 + len(auth)
	}
	if q := strings.Index(s, "?"); q >= 0 {
		params := strings.Split(s[q+1:], "&")
		for k, p := range params {
			if name, _, ok := strings.Cut(p, "="); ok && secretParam(name) {
				params[k] = name + "=" + hidden
			}
		}
		s = s[:q+1] + strings.Join(params, "&")
	}
	return s
}

// secretParam reports a query parameter's name that names a secret.
func secretParam(name string) bool {
	if n, err := url.QueryUnescape(name); err == nil {
		name = n
	}
	name = strings.ToLower(strings.TrimSpace(name))
	switch name {
	case "passwd", "pwd", "pass", "token", "secret", "api_key", "apikey", "access_token", "auth", "key":
		return true
	}
	return strings.HasSuffix(name, "password") || strings.HasSuffix(name, "secret") || strings.HasSuffix(name, "_token")
}

// RedactArgs is a command line with Redact applied to every argument ("--target=http://u:xxxxx@h"
// as well as "--target", "http://u:xxxxx@h"): the command a disclosure records.
func RedactArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = Redact(a)
	}
	return out
}
