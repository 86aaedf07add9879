package dsn

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct{ dsn, driver, target string }{
		{"sqlite:trade.db", SQLite, "trade.db"},
		{"sqlite:///tmp/x.db", SQLite, "/tmp/x.db"},
		{"sqlite:x?_pragma=foo", SQLite, "x?_pragma=foo"},
		{"/var/data/trade.db", SQLite, "/var/data/trade.db"},
		{"postgres://u@h/db", Postgres, "postgres://u@h/db"},
		{"postgresql://u:p@h:5/db?sslmode=disable", Postgres, "postgresql://u:p@h:5/db?sslmode=disable"},
	} {
		d, r, err := Parse(c.dsn)
		if err != nil || d != c.driver || r != c.target {
			t.Errorf("Parse(%q) = %q, %q, %v; want %q, %q", c.dsn, d, r, err, c.driver, c.target)
		}
	}
	for _, bad := range []string{"", "sqlite:", "mysql://root:hunter2@x/db", "trade.txt"} {
		_, _, err := Parse(bad)
		if err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		} else if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "--db") {
			t.Errorf("Parse(%q): %v shows the password or names a flag", bad, err)
		}
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:secret@h/db":                            "postgres://u:xxxxx@h/db",
		"postgres://u:s3:cr@t@h:5432/db?sslmode=disable":      "postgres://u:xxxxx@h:5432/db?sslmode=disable",
		"postgresql://u@h/db?sslmode=disable&password=secret": "postgresql://u@h/db?sslmode=disable&password=xxxxx",
		"postgres://u@h/db":                                   "postgres://u@h/db",
		"postgres://h/db?user=u":                              "postgres://h/db?user=u",
		"postgres://h/db?note=a:b@c":                          "postgres://h/db?note=a:b@c",
		"sqlite:trade.db":                                     "sqlite:trade.db",
		// issue 35: sslpassword= and a percent-encoded name were missed; every URL of a list
		"postgres://h/db?sslpassword=secret&sslmode=verify-full": "postgres://h/db?sslpassword=xxxxx&sslmode=verify-full",
		"postgres://h/db?pass%77ord=secret":                      "postgres://h/db?pass%77ord=xxxxx",
		"postgres://h/db?PASSWORD=secret":                        "postgres://h/db?PASSWORD=xxxxx",
		"nats://u:secret@a:4222,nats://v:secret@b:4222":          "nats://u:xxxxx@a:4222,nats://v:xxxxx@b:4222",
		"--target=http://admin:secret@127.0.0.1:8080":            "--target=http://admin:xxxxx@127.0.0.1:8080",
		"http://h/metrics?token=secret":                          "http://h/metrics?token=xxxxx",
		"sqlite:x?_pragma=busy_timeout(5000)":                    "sqlite:x?_pragma=busy_timeout(5000)",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// Need refuses a SQLite file that is not there (unless it is to be created), and a created
// one's directory that is not there, except the one directory it may make; PostgreSQL and
// in-memory SQLite pass, and nothing is created by a refusal.
// (Mutant dsn-need-missing-file-passes: a missing database passes, and opening it would create
// an empty file.)
func TestNeed(t *testing.T) {
	dir := t.TempDir()
	have := filepath.Join(dir, "have.db")
	if err := os.WriteFile(have, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := "sqlite:" + filepath.Join(dir, "missing.db")
	for _, c := range []struct {
		db      string
		create  bool
		makeDir string
		want    error
	}{
		{"sqlite:" + have, false, "", nil},
		{missing, false, "", ErrNoDatabase},
		{missing + "?_pragma=busy_timeout(5000)", false, "", ErrNoDatabase},
		{missing, true, "", nil},
		{"sqlite:" + filepath.Join(dir, "nodir", "x.db"), true, "", ErrNoDir},
		{"sqlite:" + filepath.Join(dir, "work", "x.db"), true, filepath.Join(dir, "work"), nil},
		{"sqlite::memory:", false, "", nil},
		{"postgres://u:secret@127.0.0.1:1/db", false, "", nil},
	} {
		err := Need(c.db, c.create, c.makeDir)
		if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Errorf("Need(%s, %v, %q) = %v, want %v", c.db, c.create, c.makeDir, err, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "work")); err != nil {
		t.Errorf("the directory Need may make was not made: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "nodir")); err == nil {
		t.Error("a directory Need may not make was made")
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); err == nil {
		t.Error("a refused database was created")
	}
	err := Need("sqlite:"+filepath.Join(dir, "nodir", "x.db"), true, "")
	if want := "the directory " + filepath.Join(dir, "nodir") + " does not exist"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want it to say %q", err, want)
	}
}
