package main

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/report"
)

// --stages drives quick mode through a profile — the results record it and the users it
// peaked at — and bad input is one line naming the flag, exit 2, before any load: a mistyped
// leg, a profile beside the flags it replaces, a capacity search.
// Mutant (scripts/mutants.d/stages-flag-ignored): the flag parsed but the phases left as they were.
func TestStagesFlag(t *testing.T) {
	var got seen
	srv := httptest.NewServer(got.handler(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "st.json")
	code, _, stderr := capture(t, "drive", "--url", srv.URL+"/", "--stages", "300ms:3,300ms:0", "--progress", "off", "--out", out)
	r, err := report.ReadFile(out)
	if err != nil {
		t.Fatalf("exit %d: %s (%v)", code, stderr, err)
	}
	// the profile first: a run that ignored it (default users for a minute) may also end invalid
	// on a busy machine, and its settings say why better than its exit status
	if r.Settings.Stages != "300ms:3,300ms:0" || r.Settings.Users != 3 || r.Settings.RampUp != "0s" || r.Settings.Steady != "600ms" {
		t.Errorf("settings %+v: want the profile, 3 users at its peak, measured over its 600ms", r.Settings)
	}
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if len(got.all()) == 0 {
		t.Error("no request reached the server")
	}
	for _, c := range []struct{ args, want string }{
		{"--stages 30s:50,1x:3", `--stages "30s:50,1x:3": stage 2 "1x:3": "1x" is not a duration`},
		{"--stages 30s:50 --users 5", "--stages is the whole load profile: drop --users"},
		{"--stages 30s:50 --duration 1m", "drop --duration"},
		{"--stages 30s:500000", "at most 100000"},
		{"--stages 30s:50 --peak", "drop --peak"},
		{"--stages 30s:50 --repeat 2", "drop --repeat"},
	} {
		code, _, stderr := capture(t, append([]string{"drive", "--url", srv.URL + "/"}, strings.Fields(c.args)...)...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%s: exit %d, %q; want exit 2 and one line saying %q", c.args, code, stderr, c.want)
		}
	}
}
