// Package dsn is the one reading of a database name every tradebench store takes (StockTrader's,
// CachePerf's, the command line's checks), and the one way a DSN is shown: with its password
// hidden, in errors, logs, progress lines and the config page alike.
package dsn

import (
	"fmt"
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

// Redact hides the passwords in a DSN: the URL's user password and a password= query
// parameter ("postgres://u:xxxxx@h/db?password=xxxxx"). Anything else is returned unchanged.
func Redact(s string) string {
	const hidden = "xxxxx"
	if i := strings.Index(s, "://"); i >= 0 {
		auth := s[i+3:]
		if end := strings.IndexAny(auth, "/?#"); end >= 0 {
			auth = auth[:end]
		}
		if at := strings.LastIndex(auth, "@"); at >= 0 {
			if c := strings.Index(auth[:at], ":"); c >= 0 {
				s = s[:i+3+c+1] + hidden + s[i+3+at:]
			}
		}
	}
	if q := strings.Index(s, "?"); q >= 0 {
		params := strings.Split(s[q+1:], "&")
		for k, p := range params {
			if name, _, ok := strings.Cut(p, "="); ok && strings.EqualFold(name, "password") {
				params[k] = name + "=" + hidden
			}
		}
		s = s[:q+1] + strings.Join(params, "&")
	}
	return s
}
