package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/bench/tradejob"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
	"github.com/tradebench/tradebench/trade/server"
)

// TestMonolithTokenForTheClient: the monolith writes its service token to --service-token-file
// when the file does not exist, so the smart client can call the monolith's services host with
// it — and the monolith, whose web tier has its services in the process, gives no NATS warning.
// (Mutants: skip writing the file — serve refuses the missing file and never serves; warn for
// every web tier with remote access, the monolith's included — the first line matched is the
// warning.)
func TestMonolithTokenForTheClient(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "trade.db")
	mustRun(t, "load", "--db", db, "--accounts", "20", "--quotes", "10", "--progress", "off")
	tok := filepath.Join(dir, "tok")
	s, m := serveCmd(t, regexp.MustCompile(`(quote changes from a remote)|tradebench serving.* rest=http://([^/\s]+)`),
		"serve", "--db", db, "--listen", "127.0.0.1:0", "--access", "rest", "--service-token-file", tok)
	if m[1] != "" {
		t.Fatalf("the monolith warned that it needs NATS for live quotes")
	}
	if st, err := os.Stat(tok); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v, want one of mode 0600", st, err)
	}
	r := tb(t, "client", "--access", "rest", "--bsl", m[2], "--service-token-file", tok, "--batch", "portfolio", "--uid", "uid:1", "--password", "xxx")
	if r.code != 0 || !strings.Contains(r.stdout, "PORTFOLIO") {
		t.Errorf("client against the monolith: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	s.stop(t)
}

// TestRemoteWebTierWithoutNATSWarns: a web tier that calls a services host in another process
// and has no NATS broker says at start that its live quotes will not update. (Mutant: drop the
// warning — the start-up line comes first.)
func TestRemoteWebTierWithoutNATSWarns(t *testing.T) {
	t.Setenv(svcauth.EnvToken, svcauth.NewToken())
	s, m := serveCmd(t, regexp.MustCompile(`(level=WARN msg="quote changes from a remote services host need --nats)|(tradebench serving)`),
		"serve", "--role", "web", "--access", "rest", "--bsl", "127.0.0.1:1", "--listen", "127.0.0.1:0")
	if m[1] == "" {
		t.Errorf("a web tier with --access rest and no --nats started without a warning")
	}
	s.stop(t)
}

// TestOneDefaultDataSet: run, serve (--load-if-empty) and the database commands share one
// default database and one default data set, and the help says so. (Mutant: serve's default
// database back to sqlite:tradebench.db — the first check fails.)
func TestOneDefaultDataSet(t *testing.T) {
	runDB := "sqlite:" + filepath.Join(tradejob.DefaultWorkdir, "stocktrader.db")
	if db := server.DefaultConfig().DB; db != runDB || defaultDB != runDB {
		t.Errorf("serve's default database %s, load/reset/audit's %s, run's %s: want one", db, defaultDB, runDB)
	}
	if server.DefaultLoadIfEmptyAccounts != tradejob.DefaultAccounts || server.DefaultLoadIfEmptyQuotes != tradejob.DefaultQuotes {
		t.Errorf("serve --load-if-empty loads %d/%d, run %d/%d: want one data set", server.DefaultLoadIfEmptyAccounts,
			server.DefaultLoadIfEmptyQuotes, tradejob.DefaultAccounts, tradejob.DefaultQuotes)
	}
	help := tb(t, "serve", "--help").stdout
	for _, w := range []string{runDB, "with --load-if-empty: accounts to load (default " + strconv.Itoa(tradejob.DefaultAccounts) + ")"} {
		if !strings.Contains(help, w) {
			t.Errorf("serve --help does not say %q", w)
		}
	}
}

// TestCachePerfHelpMatchesTheFile: the sweep's help names where its points are in the results
// file, and they are there. (Mutant: the help's old "extra.points".)
func TestCachePerfHelpMatchesTheFile(t *testing.T) {
	if help := tb(t, "cacheperf", "sweep", "--help").stdout; !strings.Contains(help, "detail.points") || strings.Contains(help, "extra.points") {
		t.Errorf("cacheperf sweep --help does not say detail.points:\n%s", help)
	}
	out := filepath.Join(t.TempDir(), "cp.json")
	r := tb(t, "cacheperf", "sweep", "--items", "10", "--size", "1KB", "--cache-size", "1MB", "--keys", "10", "--mix-keys", "10", "--other-work-mix", "0",
		"-c", "1", "--ramp-up", "0s", "-d", "200ms", "--baseline=false", "--progress", "off", "--no-report", "--out", out)
	if r.code != 0 && r.code != exitThresholds { // 3: over the small cache's memory ceiling, results written all the same
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Detail struct {
			Points []json.RawMessage `json:"points"`
		} `json:"detail"`
	}
	if err := json.Unmarshal(b, &file); err != nil || len(file.Detail.Points) != 1 {
		t.Errorf("detail.points of the file: %d points, %v; want 1", len(file.Detail.Points), err)
	}
}
