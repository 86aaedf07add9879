package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/testing/pgtest"
)

// The smoke tests run the real command line: this test binary re-executed with smokeMainEnv set
// runs main with the arguments given, so exit status, standard output and standard error are the
// binary's own.
const smokeMainEnv = "TRADEBENCH_SMOKE_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(smokeMainEnv) == "1" {
		main()
		os.Exit(0)
	}
	pgtest.Main(m) // m.Run, then stop the throwaway PostgreSQL cluster if a test started one
}

// smokeTimeout bounds one command: the runs here take a few seconds; the bound only turns a
// hang into a failure.
const smokeTimeout = 5 * time.Minute

type result struct {
	code           int
	stdout, stderr string
}

func smokeCmd(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), smokeMainEnv+"=1")
	cmd.Dir = dir
	return cmd
}

// tb runs tradebench with args in a temporary directory and returns how it ended.
func tb(t *testing.T, args ...string) result {
	t.Helper()
	return runIn(t, t.TempDir(), args...)
}

// mustRun runs tradebench and fails unless it exits 0.
func mustRun(t *testing.T, args ...string) result {
	t.Helper()
	r := tb(t, args...)
	if r.code != 0 {
		t.Fatalf("tradebench %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

// running is a long-running tradebench command.
type running struct {
	cmd    *exec.Cmd
	exited chan error
}

// serveCmd starts a long-running tradebench command and waits until a line of its output matches
// find, whose submatches it returns. The minute is only so a server that never comes up fails
// the test instead of hanging it.
func serveCmd(t *testing.T, find *regexp.Regexp, args ...string) (*running, []string) {
	t.Helper()
	cmd := smokeCmd(context.Background(), t.TempDir(), args...)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &running{cmd: cmd, exited: make(chan error, 1)}
	go func() { err := cmd.Wait(); pw.Close(); s.exited <- err }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	found := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := find.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m:
				default:
				}
			}
		}
		io.Copy(io.Discard, pr)
	}()
	select {
	case m := <-found:
		return s, m
	case err := <-s.exited:
		t.Fatalf("tradebench %v exited before serving: %v", args, err)
	case <-time.After(time.Minute):
		t.Fatalf("tradebench %v did not say it serves (%v) within a minute", args, find)
	}
	return nil, nil
}

// stop sends SIGTERM (Ctrl-C's cousin) and expects a clean exit.
func (s *running) stop(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.exited:
		if err != nil {
			t.Fatalf("stopping %v: %v, want exit 0", s.cmd.Args[1:], err)
		}
	case <-time.After(time.Minute):
		t.Fatalf("%v still running a minute after SIGTERM", s.cmd.Args[1:])
	}
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	c := &http.Client{Timeout: time.Minute}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Every command and subcommand: --help prints its usage and exits 0; an unknown flag exits 2
// with a message naming the flag; and so does an unknown command.
func TestSmokeHelpAndBadFlag(t *testing.T) {
	if r := tb(t, "--help"); r.code != 0 || !strings.Contains(r.stdout, "usage: tradebench <command>") {
		t.Errorf("tradebench --help: exit %d\n%s", r.code, r.stdout)
	}
	if r := tb(t, "no-such-command"); r.code != 2 || !strings.Contains(r.stderr, `unknown command "no-such-command"`) {
		t.Errorf("tradebench no-such-command: exit %d\n%s", r.code, r.stderr)
	}
	for _, path := range []string{
		"version", "load", "reset", "serve", "run", "drive", "audit",
		"wstest", "wstest serve", "wstest drive", "wstest configs",
		"cacheperf", "cacheperf load", "cacheperf serve", "cacheperf sweep",
		"xmlmark", "xmlmark gen", "xmlmark run", "xmlmark configs",
	} {
		args := strings.Fields(path)
		r := tb(t, append(args, "--help")...)
		if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "usage: tradebench "+path) {
			t.Errorf("tradebench %s --help: exit %d, want 0 and its usage\nstdout:\n%s\nstderr:\n%s", path, r.code, r.stdout, r.stderr)
		}
		r = tb(t, append(args, "--no-such-flag")...)
		if r.code != 2 || !strings.Contains(r.stderr, "no-such-flag") {
			t.Errorf("tradebench %s --no-such-flag: exit %d, want 2 and a message naming the flag\nstderr:\n%s", path, r.code, r.stderr)
		}
	}
}

func TestSmokeVersion(t *testing.T) {
	if r := mustRun(t, "version"); !strings.HasPrefix(r.stdout, "tradebench ") {
		t.Fatalf("version printed %q", r.stdout)
	}
}

// StockTrader end to end, small: load, reset, audit, serve (a page answers, SIGTERM stops it
// cleanly) and the main job.
func TestSmokeStockTrader(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "trade.db")
	if r := mustRun(t, "load", "--db", db, "--accounts", "20", "--quotes", "10", "--quiet"); !strings.Contains(r.stdout+r.stderr, "loaded 20 accounts") {
		t.Errorf("load said:\n%s%s", r.stdout, r.stderr)
	}
	mustRun(t, "reset", "--db", db)
	mustRun(t, "audit", "--db", db)

	s, m := serveCmd(t, regexp.MustCompile(`url=(http://\S+)/trade/`), "serve", "--db", db, "--listen", "127.0.0.1:0")
	if code, body := httpGet(t, m[1]+"/daytrader/app?action=login&uid=uid:1&passwd=xxx"); code != 200 || !strings.Contains(body, "Welcome uid:1") {
		t.Errorf("login page of the served monolith: %d\n%.500s", code, body)
	}
	s.stop(t)

	out := filepath.Join(dir, "run.json")
	mustRun(t, "run", "--accounts", "50", "--quotes", "20", "--users", "2", "--ramp-up", "0s", "--duration", "2s",
		"--ramp-down", "0s", "--workdir", filepath.Join(dir, "run"), "--progress", "off", "--out", out)
	if _, err := os.Stat(out); err != nil {
		t.Errorf("run wrote no results: %v", err)
	}
}

// WSTest: the built-in configurations, and a short drive of a served WSTest that checks every
// echo.
func TestSmokeWSTest(t *testing.T) {
	if r := mustRun(t, "wstest", "configs"); !strings.Contains(r.stdout, "sun-echolist20") {
		t.Errorf("wstest configs listed:\n%s", r.stdout)
	}
	if r := mustRun(t, "wstest", "configs", "sun-echolist20"); !strings.Contains(r.stdout, "Agents") {
		t.Errorf("wstest configs sun-echolist20 printed:\n%s", r.stdout)
	}
	s, m := serveCmd(t, regexp.MustCompile(`soap=(http://[^/\s]+)/wstest/soap .*grpc=(\S+)`), "wstest", "serve", "--listen", "127.0.0.1:0", "--grpc-listen", "127.0.0.1:0")
	out := filepath.Join(t.TempDir(), "wstest.json")
	r := mustRun(t, "wstest", "drive", "--target", m[1], "--grpc", m[2], "--config", "sun-echolist20",
		"-c", "1", "--rampup", "0", "-d", "1s", "--rampdown", "0", "--quiet", "--out", out)
	if wroteResults(t, r, out); !strings.Contains(r.stderr, "1 users") {
		t.Errorf("wstest drive's header counts users:\n%s", r.stderr)
	}
	s.stop(t)
}

// CachePerf: load, serve (an item page answers), and a sweep of one point.
func TestSmokeCachePerf(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "cache.db")
	mustRun(t, "cacheperf", "load", "--db", db, "--items", "10", "--size", "4KB")
	s, m := serveCmd(t, regexp.MustCompile(`url=(http://\S+/cacheperf/)`), "cacheperf", "serve", "--db", db, "--cache-size", "1MB", "--listen", "127.0.0.1:0")
	if code, body := httpGet(t, m[1]+"hello"); code != 200 || !strings.Contains(body, "Hello, World!") {
		t.Errorf("cacheperf hello page: %d %.200s", code, body)
	}
	s.stop(t)
	out := filepath.Join(dir, "sweep.json")
	r := tb(t, "cacheperf", "sweep", "--items", "20", "--size", "4KB", "--cache-size", "1MB", "--keys", "10", "--mix-keys", "10",
		"-c", "2", "--warmup", "100ms", "-d", "300ms", "--baseline=false", "--out", out)
	// 3: the process's peak RSS passed the small cache's ceiling (as under -race); the results
	// are written all the same
	if r.code != 0 && r.code != exitThresholds {
		t.Fatalf("cacheperf sweep: exit %d\n%s", r.code, r.stderr)
	}
	wroteResults(t, r, out)
}

// XML Mark: the built-in configurations, a generated document, and a short run.
func TestSmokeXMLMark(t *testing.T) {
	if r := mustRun(t, "xmlmark", "configs"); !strings.Contains(r.stdout, "DOM1") {
		t.Errorf("xmlmark configs listed:\n%s", r.stdout)
	}
	dir := t.TempDir()
	doc := filepath.Join(dir, "inv.xml")
	mustRun(t, "xmlmark", "gen", "--lines", "5", "--out", doc)
	if b, err := os.ReadFile(doc); err != nil || !bytes.Contains(b, []byte("<")) {
		t.Errorf("xmlmark gen wrote %d bytes: %v", len(b), err)
	}
	out := filepath.Join(dir, "xmlmark.json")
	r := mustRun(t, "xmlmark", "run", "DOM1", "-c", "1", "--rampup", "0s", "-d", "1s", "--rampdown", "0s", "--quiet", "--out", out)
	if wroteResults(t, r, out); !strings.Contains(r.stderr, "1 users") {
		t.Errorf("xmlmark run's header counts users:\n%s", r.stderr)
	}
}

// wroteResults checks every workload's --out: the results file, the HTML report beside it and
// the one "results written to" line. (Mutant: xmlmark run writing the JSON only, as before —
// the report check fails.)
func wroteResults(t *testing.T, r result, out string) {
	t.Helper()
	if _, err := os.Stat(out); err != nil {
		t.Errorf("no results file: %v", err)
	}
	if _, err := os.Stat(strings.TrimSuffix(out, ".json") + ".html"); err != nil {
		t.Errorf("no HTML report beside the results: %v", err)
	}
	if !strings.Contains(r.stderr, "results written to "+out+"\n") {
		t.Errorf("stderr does not say 'results written to %s':\n%s", out, r.stderr)
	}
}
