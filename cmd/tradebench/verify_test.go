package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/report"
)

// tradebench verify against tradebench: exit 0, the accounts it makes said first, the summary on
// stdout, the JSON, its HTML report and the JUnit written. Against a target that answers every
// page with a 500: exit 7 (not conformant), level 0 of 4, the failure's evidence in the summary.
// A missing --target is a usage error naming the flag.
func TestVerifyCommand(t *testing.T) {
	s := startServices(t)
	dir := t.TempDir()
	out, junit := filepath.Join(dir, "v.json"), filepath.Join(dir, "v.xml")
	code, stdout, stderr := capture(t, "verify", "--target", s.URL(), "--out", out, "--junit", junit, "--audit-users", "2", "--audit-trades", "2")
	if code != 0 || !strings.Contains(stdout, "conformant: DayTrader-compatible to level 4 of 4") {
		t.Fatalf("verify tradebench: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "verify registers its own accounts (vf-") || strings.Index(stderr, "registers its own") > strings.Index(stderr, "pages.register") {
		t.Fatalf("verify did not say first which accounts it creates:\n%s", stderr)
	}
	v, err := report.ReadVerification(out)
	if err != nil || !v.Conformant || v.Level != 4 || len(v.Accounts) == 0 {
		t.Fatalf("results %s: %+v %v", out, v, err)
	}
	html, err := os.ReadFile(filepath.Join(dir, "v.html"))
	if err != nil || !strings.Contains(string(html), "CONFORMANT") || !strings.Contains(string(html), "business.commission") {
		t.Fatalf("report: %v\n%.2000s", err, html)
	}
	x, err := os.ReadFile(junit)
	if err != nil || !strings.Contains(string(x), `<testsuite name="level 2: business rules"`) || !strings.Contains(string(x), `failures="0"`) {
		t.Fatalf("junit: %v\n%.2000s", err, x)
	}

	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "java.lang.NullPointerException", http.StatusInternalServerError)
	}))
	defer bad.Close()
	code, stdout, stderr = capture(t, "verify", "--target", bad.URL, "--junit", junit)
	if code != exitNotConform || !strings.Contains(stdout, "not conformant: DayTrader-compatible to level 0 of 4") ||
		!strings.Contains(stdout, "status:   500") || !strings.Contains(stdout, "NullPointerException") {
		t.Fatalf("verify a target of 500s: exit %d, want %d\n%s\n%s", code, exitNotConform, stdout, stderr)
	}
	if x, _ := os.ReadFile(junit); !strings.Contains(string(x), "<failure message=") {
		t.Fatalf("junit of a failed verification has no failure:\n%.2000s", x)
	}

	if code, _, stderr := capture(t, "verify"); code != exitUsage || !strings.Contains(stderr, "--target") {
		t.Fatalf("verify without --target: exit %d\n%s", code, stderr)
	}
}
