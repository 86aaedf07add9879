package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutDashIsRefused: --out - is refused in one line (exit 2) before anything runs; it wrote
// files named "-" and "-.html".
func TestOutDashIsRefused(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"drive", "--url", "http://127.0.0.1:1/", "-d", "1s", "--out", "-"}, {"run", "--users", "1", "--out", "-"}} {
		r := runIn(t, dir, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "--out -: the results go to a file") || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
	}
	for _, f := range []string{"-", "-.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("a file named %q was written", f)
		}
	}
}

// TestHelpSaysWhatHappens: run's --users has no default of 50 (no --users is a capacity
// search), --start-at's default is said once, and run's and drive's help list every exit status
// they can end with, 7 (--verify) and 130 (interrupted) too.
func TestHelpSaysWhatHappens(t *testing.T) {
	run := mustRun(t, "run", "--help").stdout
	if i := strings.Index(run, "  -users int\n"); i < 0 || strings.Contains(run[i:i+200], "(default 50)") || !strings.Contains(run[i:i+200], "searches for the capacity") {
		t.Errorf("run --help's --users:\n%s", run[max(i, 0):min(len(run), max(i, 0)+200)])
	}
	for _, cmd := range []string{"run", "drive"} {
		h := mustRun(t, cmd, "--help").stdout
		if strings.Contains(h, "0001-01-01") {
			t.Errorf("%s --help prints --start-at's zero instant as a default", cmd)
		}
		if !strings.Contains(h, "7 the") || !strings.Contains(h, "130 interrupted") {
			t.Errorf("%s --help does not list exit statuses 7 and 130", cmd)
		}
	}
}

// TestBodyTemplateFlag: --body-template is quick mode's, needs a --body, and a hole that does not
// compile is refused naming --body (exit 2), before any load.
func TestBodyTemplateFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"drive", "--scenario", "stocktrader", "--target", "http://127.0.0.1:1", "--body-template"}, "--body-template shapes quick mode's request"},
		{[]string{"drive", "--url", "http://127.0.0.1:1/", "--body-template"}, "--body-template makes --body a template: give --body"},
		{[]string{"drive", "--url", "http://127.0.0.1:1/", "--body-template", "--body", "{{nope 1}}"}, `--body: url: line 3: request: body: template "{{nope 1}}": unknown function "nope"`},
	} {
		r := tb(t, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}
