package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// feederServer records what each request carried of the feed: its query, a header and its body.
type feederServer struct {
	mu   sync.Mutex
	seen []string // "query|header|body"
}

func (s *feederServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<10))
	s.mu.Lock()
	s.seen = append(s.seen, r.URL.RawQuery+"|"+r.Header.Get("X-User")+"|"+string(b))
	s.mu.Unlock()
}

// A CSV feed end to end against a local server: every request's URL, header and templated body
// carry one row's columns — the same row in all three (round-robin per iteration), every row
// used; with --data-per-user each of the 2 users keeps its own row, so only the first 2 rows
// are sent. Bad files are one line naming --data (a hole naming no column: the flag it is in),
// exit 2, before any load.
// Mutants: feeder-row-per-hole (each hole takes its own next row: the URL, header and body of
// one request disagree), feeder-per-user-ignored.
func TestQuickModeDataFeeder(t *testing.T) {
	var srv feederServer
	ts := httptest.NewServer(&srv)
	defer ts.Close()
	dir := t.TempDir()
	csv := filepath.Join(dir, "users.csv")
	if err := os.WriteFile(csv, []byte("user,symbol\nuid:0,s:10\nuid:1,s:11\nuid:2,s:12\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"drive", "--url", ts.URL + "/q?u={{row.user}}", "-H", "X-User: {{row.user}}", "--body", `{"symbol":"{{row.symbol}}"}`, "--body-template",
		"--data", csv, "-c", "2", "--iterations", "6", "-d", "30s", "--progress", "off"}
	if code, _, stderr := capture(t, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows := map[string]string{"0": "10", "1": "11", "2": "12"}
	used := map[string]bool{}
	for _, s := range srv.seen {
		var n string
		for k, sym := range rows {
			if s == "u=uid:"+k+"|uid:"+k+`|{"symbol":"s:`+sym+`"}` {
				n = k
			}
		}
		if n == "" {
			t.Fatalf("a request carried %q: not one row's columns in its URL, header and body", s)
		}
		used[n] = true
	}
	if len(srv.seen) < 6 || len(used) != 3 {
		t.Errorf("%d requests used rows %v, want all 3 rows round-robin", len(srv.seen), used)
	}

	srv.seen = nil
	if code, _, stderr := capture(t, append(args, "--data-per-user")...); code != 0 {
		t.Fatalf("--data-per-user: exit %d: %s", code, stderr)
	}
	for _, s := range srv.seen {
		if strings.Contains(s, "uid:2") {
			t.Errorf("--data-per-user with 2 users sent row 3: %q", s)
		}
	}

	bad := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct{ file, want string }{
		{bad("empty.csv", ""), "empty: the first row names the columns"},
		{bad("headeronly.csv", "user,symbol\n"), "a header row and no data rows"},
		{bad("ragged.csv", "user,symbol\nuid:0\n"), "wrong number of fields"},
		{bad("badname.csv", "user name,symbol\nx,y\n"), `"user name" is not a column name`},
		{bad("twice.csv", "user,user\nx,y\n"), `column "user" named twice`},
		{bad("nosymbol.csv", "user\nuid:0\n"), "{{row.symbol}}: no such column (columns: user)"},
		{filepath.Join(dir, "missing.csv"), "no such file"},
	} {
		code, _, stderr := capture(t, "drive", "--url", ts.URL+"/q?u={{row.user}}", "--body", `{{row.symbol}}`, "--body-template", "--data", c.file, "-c", "1", "-d", "1s", "--progress", "off")
		if code != 2 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "--data") && !strings.Contains(stderr, "--body") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%s: exit %d, %q; want exit 2 and one line naming --data (or --body, where the hole is) and saying %q", filepath.Base(c.file), code, stderr, c.want)
		}
	}
}
