package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// The test bed's own PostgreSQL (scripts/testbed db: what up makes when no --db is given) is
// not open to every local user: scram authentication for every line of pg_hba.conf (no
// trust), the generated password, the pgpass file and the whole DSN each 0600 in DIR, the
// server on the test bed's loopback address only, and the DSN printed with its password
// redacted. A connection without the password is refused; with DIR/dsn it is let in. Item 8 of
// issue 50. It costs an initdb (seconds).
// Mutant (scripts/mutants.d/testbed-pg-trust): pg_hba.conf written with trust again.
func TestTestbedDatabaseScram(t *testing.T) {
	t.Parallel()
	inits, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(inits) == 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("PostgreSQL is not installed: the test bed's database needs it")
		}
		t.Skip("PostgreSQL is not installed (Debian: apt-get install postgresql)")
	}
	script, err := filepath.Abs("../../scripts/testbed")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(script); err != nil { // stat'ed, so go test's cache keys the result on the script too
		t.Fatal(err)
	}
	dir := t.TempDir()
	// the database runs as the postgres user when the test runs as root: it must reach DIR/pg
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// a loopback network of its own, NET.7:5432 free (another test bed may hold one)
	netw := ""
	for i := 2; i < 250 && netw == ""; i++ {
		cand := fmt.Sprintf("127.%d.%d", 100+os.Getpid()%100, (os.Getpid()+i)%250+2)
		if l, err := net.Listen("tcp", cand+".7:5432"); err == nil {
			l.Close()
			netw = cand
		}
	}
	if netw == "" {
		t.Skip("no free loopback address for the database")
	}
	run := func(args ...string) string {
		cmd := exec.Command(script, args...)
		cmd.Env = append(os.Environ(), "PGPASSFILE=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("testbed %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	t.Cleanup(func() { run("down", "--dir", dir) })
	out := run("db", "--dir", dir, "--net", netw)

	pw, err := os.ReadFile(filepath.Join(dir, "pg-password"))
	if err != nil || len(strings.TrimSpace(string(pw))) < 32 {
		t.Fatalf("the generated password: %q, %v", pw, err)
	}
	password := strings.TrimSpace(string(pw))
	for _, f := range []string{"pg-password", "pgpass", "dsn"} {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("DIR/%s: %v, %v; want mode 0600", f, fi.Mode(), err)
		}
	}
	if strings.Contains(out, password) || !strings.Contains(out, "postgres://postgres:xxxxx@"+netw+".7:5432/") {
		t.Errorf("the DSN as printed (password redacted?):\n%s", out)
	}
	hba, err := os.ReadFile(filepath.Join(dir, "pg", "data", "pg_hba.conf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(hba)), "\n") {
		if f := strings.Fields(l); len(f) == 0 || f[len(f)-1] != "scram-sha-256" {
			t.Errorf("pg_hba.conf line %q: want scram-sha-256", l)
		}
	}
	dsn, err := os.ReadFile(filepath.Join(dir, "dsn"))
	if err != nil || !strings.Contains(string(dsn), ":"+password+"@") {
		t.Fatalf("DIR/dsn: the whole DSN expected: %v", err)
	}
	ctx := context.Background()
	// no password: refused (whatever a pgpass file gave, dropped)
	cfg, err := pgx.ParseConfig("postgres://postgres@" + netw + ".7:5432/postgres?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Password = ""
	if c, err := pgx.ConnectConfig(ctx, cfg); err == nil {
		c.Close(ctx)
		t.Error("a connection without the password was let in")
	} else if !strings.Contains(err.Error(), "password") {
		t.Errorf("a connection without the password: %v, want refused for its password", err)
	}
	c, err := pgx.Connect(ctx, strings.TrimSpace(string(dsn)))
	if err != nil {
		t.Fatalf("with DIR/dsn: %v", err)
	}
	defer c.Close(ctx)
	var listen string
	if err := c.QueryRow(ctx, "SHOW listen_addresses").Scan(&listen); err != nil || listen != netw+".7" {
		t.Errorf("listen_addresses %q (%v), want only %s.7", listen, err, netw)
	}
}
