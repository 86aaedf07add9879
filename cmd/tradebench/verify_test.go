package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/trade/business"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/store"
	"github.com/tradebench/tradebench/trade/web"
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
	if !strings.Contains(stderr, "verify registers its own accounts (vf-") || strings.Index(stderr, "registers its own") > strings.Index(stderr, "level 1 of 4") {
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
	code, stdout, stderr = capture(t, "verify", "--target", bad.URL, "--junit", junit, "--force")
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

// verify's ends as a newcomer meets them. A port where nothing listens: one line, exit 1 (the
// target could not be verified), not a verdict. A non-application (500s everywhere): the
// headline first, each check once across stdout and stderr. Credentials in the target URL
// never reach the JSON, the report or the JUnit. An existing --out or --junit is refused
// without --force, a symbolic link at --junit is never followed, and --force replaces the
// files, not what a link points at.
func TestVerifyCommandEnds(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	code, stdout, stderr := capture(t, "verify", "--target", deadURL)
	if code != exitInternal || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "does not answer") {
		t.Fatalf("verify a dead port: exit %d, want %d and one line\nstdout %q\nstderr %q", code, exitInternal, stdout, stderr)
	}

	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "not an application", http.StatusInternalServerError)
	}))
	defer bad.Close()
	dir := t.TempDir()
	out, junit, elsewhere := filepath.Join(dir, "v.json"), filepath.Join(dir, "v.xml"), filepath.Join(dir, "elsewhere.txt")
	os.WriteFile(elsewhere, []byte("keep me"), 0o644)
	os.Symlink(elsewhere, junit)
	target := strings.Replace(bad.URL, "http://", "http://admin:S3cretPW@", 1) + "/?token=QTOKEN1234"
	code, stdout, stderr = capture(t, "verify", "--target", target, "--out", out, "--junit", junit)
	if code != exitUsage || !strings.Contains(stderr, "--junit") || !strings.Contains(stderr, "exists") {
		t.Fatalf("verify onto a symbolic link without --force: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr = capture(t, "verify", "--target", target, "--out", out, "--junit", junit, "--force")
	if code != exitNotConform || !strings.HasPrefix(stdout, "not conformant: DayTrader-compatible to level 0 of 4") {
		t.Fatalf("verify a non-application: exit %d, the headline not first\n%s\n%s", code, stdout, stderr)
	}
	for _, id := range []string{"pages.register", "business.buy", "input.quantity", "audit.load"} {
		if n := strings.Count(stdout+stderr, " "+id+" "); n != 1 {
			t.Errorf("%s said %d times, want once\n%s\n%s", id, n, stdout, stderr)
		}
	}
	if b, _ := os.ReadFile(elsewhere); string(b) != "keep me" {
		t.Errorf("--junit followed the symbolic link: %s now holds %q", elsewhere, b)
	}
	if fi, err := os.Lstat(junit); err != nil || fi.Mode()&os.ModeSymlink != 0 {
		t.Errorf("--junit %s is still the link: %v", junit, err)
	}
	for _, f := range []string{out, filepath.Join(dir, "v.html"), junit} {
		b, err := os.ReadFile(f)
		if err != nil || strings.Contains(string(b), "S3cretPW") || strings.Contains(string(b), "QTOKEN1234") {
			t.Errorf("%s: %v; holds the target's credentials: %v", f, err, strings.Contains(string(b), "S3cretPW"))
		}
	}
	if strings.Contains(stdout+stderr, "S3cretPW") || strings.Contains(stdout+stderr, "QTOKEN1234") {
		t.Errorf("the credentials were printed:\n%s\n%s", stdout, stderr)
	}
	code, _, stderr = capture(t, "verify", "--target", target, "--out", out)
	if code != exitUsage || !strings.Contains(stderr, "--out") || !strings.Contains(stderr, "exists") {
		t.Fatalf("verify onto an existing --out without --force: exit %d\n%s", code, stderr)
	}
}

// drive --verify: a conformant target is verified, then measured, and its results, summary and
// report say so; a target that answers a negative quantity with a 500 is refused (exit 7, no
// results) unless --verify-force, whose results say it was measured anyway. Mutant: check()
// ignoring the outcome (no refusal) fails the second case.
func TestDriveVerifyFirst(t *testing.T) {
	good := startServices(t)
	dir := t.TempDir()
	load := []string{"--scenario", "stocktrader", "--set", "users=20", "--set", "quotes=50", "--users", "1", "-d", "1s",
		"--ramp-up", "0s", "--ramp-down", "0s", "--think", "0", "--progress", "off"}
	out := filepath.Join(dir, "good.json")
	code, stdout, stderr := capture(t, append([]string{"drive", "--target", good.URL(), "--verify", "--out", out, "--no-report"}, load...)...)
	res, err := report.ReadFile(out)
	if code != 0 || err != nil || res.Disclosure == nil || res.Disclosure.Verification == nil || !res.Disclosure.Verification.Conformant ||
		!strings.Contains(stdout, "target verified: conformant: DayTrader-compatible to level 4 of 4") {
		t.Fatalf("drive --verify of tradebench: exit %d, %v\n%s\n%s", code, err, stdout, stderr)
	}

	bad := httptest.NewServer(negative500(tradebenchPages(t)))
	defer bad.Close()
	out = filepath.Join(dir, "bad.json")
	code, stdout, stderr = capture(t, append([]string{"drive", "--target", bad.URL, "--verify", "--out", out}, load...)...)
	if _, err := os.Stat(out); code != exitNotConform || err == nil || !strings.Contains(stderr, "refusing to measure") || !strings.Contains(stderr, "input.quantity") {
		t.Fatalf("drive --verify of a target with a 500 on a negative quantity: exit %d (want %d), results %v\n%s\n%s", code, exitNotConform, err, stdout, stderr)
	}
	code, stdout, stderr = capture(t, append([]string{"drive", "--target", bad.URL, "--verify", "--verify-force", "--out", out}, load...)...)
	res, err = report.ReadFile(out)
	if code != 0 || err != nil || res.Disclosure.Verification == nil || res.Disclosure.Verification.Conformant || !res.Disclosure.Verification.Forced ||
		!strings.Contains(stdout, "target verified: not conformant") {
		t.Fatalf("drive --verify --verify-force: exit %d, %v\n%s\n%s", code, err, stdout, stderr)
	}
	page, err := os.ReadFile(filepath.Join(dir, "bad.html"))
	if err != nil || !strings.Contains(string(page), "measured anyway (--verify-force)") {
		t.Fatalf("the report's header does not say the target failed verification: %v", err)
	}
	cmp := filepath.Join(dir, "cmp.html")
	if code, stdout, stderr := capture(t, "report", "compare", filepath.Join(dir, "good.json"), out, "--out", cmp); code != 0 {
		t.Fatalf("report compare: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if page, err := os.ReadFile(cmp); err != nil || !strings.Contains(string(page), "verified 4/4</span>") || !strings.Contains(string(page), "verified 2/4, forced</span>") {
		t.Fatalf("report compare does not show each run's verification: %v", err)
	}
	if code, _, stderr := capture(t, append([]string{"drive", "--target", bad.URL, "--verify-force"}, load...)...); code != exitUsage || !strings.Contains(stderr, "--verify") {
		t.Fatalf("--verify-force alone: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := capture(t, "run", "--verify", "--work-dir", filepath.Join(dir, "w")); code != exitUsage || !strings.Contains(stderr, "--verify checks a --target") {
		t.Fatalf("run --verify without --target: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "w")); err == nil {
		t.Fatal("a refused run --verify created its working directory")
	}
}

// tradebenchPages is tradebench's web tier over a small SQLite data set.
func tradebenchPages(t *testing.T) http.Handler {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "pages.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	spec := dataset.DefaultSpec()
	spec.Accounts, spec.Quotes = 20, 120
	if err := st.Load(ctx, spec, nil); err != nil {
		t.Fatal(err)
	}
	h, err := web.New(business.New(st, business.Options{}), web.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// negative500 answers a negative quantity with a 500, as a real Java EE DayTrader does.
func negative500(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ParseForm() == nil && strings.HasPrefix(r.Form.Get("quantity"), "-") {
			http.Error(w, "java.lang.IllegalArgumentException", http.StatusInternalServerError)
			return
		}
		h.ServeHTTP(w, r)
	})
}
