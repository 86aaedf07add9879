package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/wstest/wsserver"
)

// capture runs runMain with os.Stdout and os.Stderr redirected and returns the exit status and
// what was written.
func capture(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	dir := t.TempDir()
	outF, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	errF, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	oldOut, oldErr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = outF, errF
	code = runMain(args)
	os.Stdout, os.Stderr = oldOut, oldErr
	read := func(f *os.File) string {
		f.Seek(0, io.SeekStart)
		b, _ := io.ReadAll(f)
		f.Close()
		return string(b)
	}
	return code, read(outF), read(errF)
}

// renamed lists every renamed flag: the command, the old name, the new one.
var renamed = []struct {
	cmd      []string
	old, new string
}{
	{[]string{"run"}, "workdir", "work-dir"},
	{[]string{"load"}, "quiet", "progress"},
	{[]string{"drive"}, "quiet", "progress"},
	{[]string{"wstest", "drive"}, "rampup", "ramp-up"},
	{[]string{"wstest", "drive"}, "steady", "duration"},
	{[]string{"wstest", "drive"}, "rampdown", "ramp-down"},
	{[]string{"wstest", "drive"}, "quiet", "progress"},
	{[]string{"xmlmark", "run"}, "rampup", "ramp-up"},
	{[]string{"xmlmark", "run"}, "steady", "duration"},
	{[]string{"xmlmark", "run"}, "rampdown", "ramp-down"},
	{[]string{"xmlmark", "run"}, "quiet", "progress"},
	{[]string{"cacheperf", "sweep"}, "threads", "users"},
	{[]string{"cacheperf", "sweep"}, "warmup", "ramp-up"},
	{[]string{"cacheperf", "sweep"}, "steady", "duration"},
}

// TestRenamedFlagsHiddenFromHelp: --help lists the new name and not the old one (catches an
// alias registered as a plain flag, or printFlags printing everything).
func TestRenamedFlagsHiddenFromHelp(t *testing.T) {
	for _, r := range renamed {
		code, help, _ := capture(t, append(r.cmd, "--help")...) // asked for, the help goes to stdout
		if code != 0 {
			t.Errorf("%v --help: exit %d", r.cmd, code)
		}
		if !regexp.MustCompile(`(?m)^  -` + regexp.QuoteMeta(r.new) + `\b`).MatchString(help) {
			t.Errorf("%v --help does not list -%s:\n%s", r.cmd, r.new, help)
		}
		if regexp.MustCompile(`(?m)^  -` + regexp.QuoteMeta(r.old) + `\b`).MatchString(help) {
			t.Errorf("%v --help lists the old name -%s:\n%s", r.cmd, r.old, help)
		}
	}
}

// TestOldNamesStillWork runs each command with its old flag names and checks they took effect
// (catches an alias with its own Value instead of the flag's: the run would use the default).
func TestOldNamesStillWork(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ws, err := wsserver.Start(ctx, wsserver.Config{Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()

	t.Run("wstest drive", func(t *testing.T) {
		code, _, stderr := capture(t, "wstest", "drive", "--target", "http://"+ws.HTTPAddr.String(),
			"--users", "3", "--rampup", "100ms", "--steady", "300ms", "--rampdown", "0", "--quiet")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if !strings.Contains(stderr, "3 users, think 0s, keep-alive true, list 20, bytes 1024, ramp-up 100ms, steady 300ms, ramp-down 0s") {
			t.Errorf("the old names did not set the run:\n%s", stderr)
		}
		if strings.Contains(stderr, "tps") {
			t.Errorf("--quiet still drew progress:\n%s", stderr)
		}
	})
	t.Run("xmlmark run", func(t *testing.T) {
		code, _, stderr := capture(t, "xmlmark", "run", "DOM1", "--users", "2", "--rampup", "0s", "--steady", "200ms", "--rampdown", "0s", "--quiet")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if !strings.Contains(stderr, "2 users, ramp-up 0s, steady 200ms, ramp-down 0s") {
			t.Errorf("the old names did not set the run:\n%s", stderr)
		}
	})
	t.Run("cacheperf sweep", func(t *testing.T) {
		out := filepath.Join(dir, "sweep.json")
		code, _, stderr := capture(t, "cacheperf", "sweep", "--threads", "2", "--warmup", "100ms", "--steady", "300ms",
			"--keys", "20", "--other-work-mix", "0", "--baseline=false", "--size", "1KB", "--cache-size", "1MB", "--out", out, "--quiet")
		// 3: the process's peak RSS passed the small cache's ceiling (as under -race); the
		// results are written all the same, and only the phases matter here.
		if code != 0 && code != 3 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		res, err := report.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if res.Phases.RampUpSeconds != 0.1 || res.Phases.SteadySeconds != 0.3 {
			t.Errorf("phases %+v, want ramp-up 0.1 s and steady 0.3 s", res.Phases)
		}
		if strings.Contains(stderr, "cacheperf sweep:") {
			t.Errorf("--quiet still wrote progress:\n%s", stderr)
		}
	})
	t.Run("load", func(t *testing.T) {
		db := "sqlite:" + filepath.Join(dir, "t.db")
		_, _, loud := capture(t, "load", "--db", db, "--accounts", "5", "--quotes", "5", "--progress", "on")
		if !strings.Contains(loud, "load: 100%") {
			t.Fatalf("--progress on wrote no progress:\n%s", loud)
		}
		code, _, stderr := capture(t, "load", "--db", db, "--accounts", "5", "--quotes", "5", "--quiet")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if strings.Contains(stderr, "load: ") {
			t.Errorf("--quiet still wrote progress:\n%s", stderr)
		}
	})
	t.Run("run", func(t *testing.T) {
		work := filepath.Join(dir, "work")
		code, _, stderr := capture(t, "run", "--workdir", work, "--accounts", "10", "--quotes", "10", "--users", "1",
			"--ramp-up", "0s", "--duration", "300ms", "--ramp-down", "0s", "--max-error-rate", "100%", "--quiet")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if _, err := os.Stat(filepath.Join(work, "results.json")); err != nil {
			t.Errorf("--workdir was not used: %v", err)
		}
	})
}

// TestBadFlagExit2NamesTheFlag: a bad value exits 2 with a message naming the flag, including
// the values only a component can judge (its setting error is mapped to the flag; catches
// cliflag.Names.OrUsage passing a component's *setting.Error through unmapped).
func TestBadFlagExit2NamesTheFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"drive", "--url", "http://127.0.0.1:1/", "--users", "0"}, "--users"},
		{[]string{"drive", "--url", "localhost:8080/x", "-d", "1s"}, "--url"},
		{[]string{"drive", "--url", "http://127.0.0.1:1/", "--progress", "loud"}, "-progress"},
		{[]string{"wstest", "drive", "--target", "http://127.0.0.1:1", "--users", "0"}, "--users"},
		{[]string{"wstest", "drive", "--target", "ftp://x"}, "--target"},
		{[]string{"wstest", "drive", "--encoding", "grpc"}, "--grpc"},
		{[]string{"wstest", "frob"}, `"frob"`},
		{[]string{"xmlmark", "run", "DOM1", "--steady", "0s"}, "--duration"},
		{[]string{"cacheperf", "sweep", "--threads", "0"}, "--users"},
		{[]string{"load", "--accounts", "0"}, "--accounts"},
		{[]string{"load", "--hash-cost", "99"}, "--hash-cost"},
		{[]string{"serve", "--market-summary-ttl", "-1s"}, "--market-summary-ttl"},
		{[]string{"serve", "--session-ttl", "30s"}, "--session-ttl"},
		{[]string{"serve", "--session-ttl", "-1m"}, "--session-ttl"},
		{[]string{"serve", "--orders-limit", "1001"}, "--orders-limit"},
		{[]string{"serve", "--stream-limit", "-1"}, "--stream-limit"},
		{[]string{"drive", "--url", "http://127.0.0.1:1/", "--connect-timeout", "-1s"}, "--connect-timeout"},
		{[]string{"drive", "--url", "http://127.0.0.1:1/", "--duration", "0s"}, "--duration"},
		{[]string{"serve", "--role", "web", "--access", "soap"}, "--bsl"},
		{[]string{"serve", "--role", "web", "--access", "grpc"}, "--bsl-grpc"},
		{[]string{"serve", "--orders", "durable"}, "--orders"},
		{[]string{"serve", "--nats", "127.0.0.1:4222"}, "--nats"},
		{[]string{"serve", "--load-if-empty", "--holdings", "-1"}, "--holdings"},
		{[]string{"run", "--bogus"}, "-bogus"},
		{[]string{"serve", "--login-max-failures", "-1"}, "--login-max-failures"},
		{[]string{"serve", "--tls-cert", "/nonexistent.pem"}, "--tls-cert"},
		// a web tier reads the token file it is given (the monolith writes a missing one: see TestMonolithTokenForTheClient)
		{[]string{"serve", "--role", "web", "--access", "rest", "--bsl", "127.0.0.1:1", "--service-token-file", "/nonexistent-token"}, "--service-token-file"},
		{[]string{"serve", "--role", "web", "--access", "rest", "--bsl", "127.0.0.1:1"}, "--service-token-file"},
	} {
		code, _, stderr := capture(t, tc.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", tc.args, code, stderr)
			continue
		}
		if !strings.Contains(stderr, tc.flag) {
			t.Errorf("%v: the message does not name %s:\n%s", tc.args, tc.flag, stderr)
		}
	}
}

// A DSN is never printed with its password: not in a usage error, not when opening fails.
func TestDSNPasswordNeverPrinted(t *testing.T) {
	unreachable := "postgres://bench:hunter2@127.0.0.1:1/x?connect_timeout=1&password=hunter2"
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"cacheperf", "load", "--db", "mysql://bench:hunter2@db/x"}, 2},
		{[]string{"cacheperf", "serve", "--db", "mysql://bench:hunter2@db/x"}, 2},
		{[]string{"load", "--db", "mysql://bench:hunter2@db/x"}, 2},
		{[]string{"audit", "--db", "mysql://bench:hunter2@db/x"}, 2},
		{[]string{"cacheperf", "load", "--db", unreachable, "--items", "1"}, 1},
		{[]string{"load", "--db", unreachable, "--accounts", "1", "--quotes", "1"}, 1},
		{[]string{"audit", "--db", unreachable}, 1},
	} {
		code, stdout, stderr := capture(t, tc.args...)
		if code != tc.code || strings.Contains(stdout+stderr, "hunter2") {
			t.Errorf("%v: exit %d (want %d), output shows the password or not:\n%s%s", tc.args, code, tc.code, stdout, stderr)
		}
	}
}
