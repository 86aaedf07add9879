package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestOutIsNotOverwrittenWithoutForce: `drive --out X` a second time refuses before any load,
// naming --force (it silently replaced the results and their HTML report); --force replaces
// them; an HTML report of that name alone is protected too; `run` says the same, from the one
// rule (report/publish). Mutant: overwrite-unchecked (publish.CheckOverwrite always nil) fails.
func TestOutIsNotOverwrittenWithoutForce(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1); w.Write([]byte("ok")) }))
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	drive := []string{"drive", "--url", srv.URL + "/", "-c", "1", "-d", "1s", "--progress", "off", "--out", out}
	if code, _, stderr := capture(t, drive...); code != 0 {
		t.Fatalf("first drive: exit %d: %s", code, stderr)
	}
	first, _ := os.ReadFile(out)
	hits.Store(0)
	code, _, stderr := capture(t, drive...)
	if code != 2 || !strings.Contains(stderr, "exists") || !strings.Contains(stderr, "--force") {
		t.Errorf("second drive --out: exit %d, want 2 naming --force: %s", code, stderr)
	}
	if now, _ := os.ReadFile(out); string(now) != string(first) || hits.Load() != 0 {
		t.Errorf("the refused drive changed the results or sent %d requests", hits.Load())
	}
	if code, _, stderr := capture(t, append(drive, "--force")...); code != 0 {
		t.Errorf("--force: exit %d: %s", code, stderr)
	}
	if now, _ := os.ReadFile(out); string(now) == string(first) {
		t.Error("--force did not replace the results")
	}
	// a report of the name alone (the results moved away) is not replaced either
	os.Remove(out)
	if code, _, stderr := capture(t, drive...); code != 2 || !strings.Contains(stderr, "r.html exists") {
		t.Errorf("an existing report: exit %d: %s", code, stderr)
	}
	if code, _, stderr := capture(t, append(drive, "--no-report")...); code != 0 {
		t.Errorf("--no-report with only the report there: exit %d: %s", code, stderr)
	}
	// run: the same rule, the same words
	code, _, stderr = capture(t, "run", "--target", srv.URL, "--users", "1", "-d", "1s", "--out", out)
	if code != 2 || !strings.Contains(stderr, "--force") {
		t.Errorf("run --out existing: exit %d: %s", code, stderr)
	}
}
