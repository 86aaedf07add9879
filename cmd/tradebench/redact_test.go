package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/report"
)

// TestCredentialsInURLsNeverWritten is finding 4 of issue 35: --target http://admin:S3cretPW@…
// and --sut-metrics http://mon:MonPW@… appeared in the results (target, disclosure.command,
// sut), the HTML report and stdout, and serve --nats nats://u:NatsPW@… echoed the password in
// its error. Every URL-bearing field goes through the one redaction, dsn.Redact. Mutants:
// redact-target-off (describe stores the target as given), redact-command-off (the disclosure
// records os.Args as they are), redact-sut-off (the scrape's origin unredacted).
func TestCredentialsInURLsNeverWritten(t *testing.T) {
	secrets := []string{"S3cretPW", "MonPW", "TokPW", "NatsPW", "SslPW"}
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>ok</title>Welcome")
	}))
	defer target.Close()
	prom := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "process_cpu_seconds_total 1\nprocess_resident_memory_bytes 1000\n")
	}))
	defer prom.Close()
	withCreds := func(u, creds string) string { return strings.Replace(u, "http://", "http://"+creds+"@", 1) }
	dir := t.TempDir()
	scen := filepath.Join(dir, "s.yaml")
	os.WriteFile(scen, []byte("name: s\nflow:\n  - request: {name: home, url: /, check: {contains: Welcome}}\n"), 0o644)
	sutURL := withCreds(prom.URL, "mon:MonPW") + "/metrics?token=TokPW&sslpassword=SslPW"

	for i, args := range [][]string{
		{"drive", "--url", withCreds(target.URL, "admin:S3cretPW") + "/", "-c", "1", "-d", "60s", "--iterations", "5"},
		{"drive", "--target=" + withCreds(target.URL, "admin:S3cretPW"), "--scenario", scen, "--users", "1", "-d", "60s", "--iterations", "5", "--ramp-up", "0s", "--ramp-down", "0s"},
	} {
		out := filepath.Join(dir, fmt.Sprintf("r%d.json", i))
		args = append(args, "--progress", "off", "--sut-metrics", sutURL, "--out", out)
		oldArgs := os.Args
		os.Args = append([]string{"tradebench"}, args...) // what the disclosure records
		code, stdout, stderr := capture(t, args...)
		os.Args = oldArgs
		if code != exitOK {
			t.Fatalf("%v: exit %d\n%s%s", args, code, stdout, stderr)
		}
		js, _ := os.ReadFile(out)
		html, _ := os.ReadFile(strings.TrimSuffix(out, ".json") + ".html")
		if len(js) == 0 || len(html) == 0 {
			t.Fatalf("no results or report written")
		}
		for what, text := range map[string]string{"stdout": stdout, "stderr": stderr, "results": string(js), "report": string(html)} {
			for _, s := range secrets {
				if strings.Contains(text, s) {
					t.Errorf("%v: the %s shows the secret %s", args[:2], what, s)
				}
			}
		}
		res, err := report.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		// the fields are there, redacted — not dropped
		if !strings.Contains(res.Target, ":xxxxx@127.0.0.1") || res.Disclosure == nil || !strings.Contains(strings.Join(res.Disclosure.Command, " "), ":xxxxx@127.0.0.1") {
			t.Errorf("target %q, command %v: not redacted in place", res.Target, res.Disclosure)
		}
		if !strings.Contains(string(js), "mon:xxxxx@") {
			t.Errorf("the sut section does not name its endpoint redacted:\n%s", js)
		}
	}

	// a broker's password in serve's error
	db := "sqlite:" + filepath.Join(dir, "t.db")
	if code, _, stderr := capture(t, "load", "--db", db, "--accounts", "2", "--quotes", "2", "--progress", "off"); code != exitOK {
		t.Fatalf("load: %d %s", code, stderr)
	}
	code, stdout, stderr := capture(t, "serve", "--listen", "127.0.0.1:0", "--db", db, "--nats", "nats://u:NatsPW@127.0.0.1:1")
	if code == exitOK || !strings.Contains(stderr, "nats://u:xxxxx@127.0.0.1:1") || strings.Contains(stdout+stderr, "NatsPW") {
		t.Errorf("serve --nats with a password: exit %d\n%s%s", code, stdout, stderr)
	}
}
