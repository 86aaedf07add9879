package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tradebench/tradebench/report"
)

// A dead port and a wrong target are refused before any load with exit 2 saying what was
// expected; an --out that cannot be written is refused before the load too.
// Mutant: Drive without the preflight call: the dead port ran its second of load and exited 6
// (nothing passed: invalid), not 2.
func TestDrivePreflightExits2(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String() + "/"
	l.Close() // nothing listens there now
	code, stdout, stderr := capture(t, "drive", "--url", dead, "-d", "1s", "--progress", "off")
	if code != 2 || !strings.Contains(stderr, "preflight") || !strings.Contains(stderr, "before any load") || strings.Contains(stdout, "transaction") {
		t.Errorf("dead port: exit %d\nstderr %s\nstdout %s", code, stderr, stdout)
	}

	// a live server that is not a StockTrader: the login check says what it expected
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte("<html>an unrelated site</html>"))
	}))
	defer srv.Close()
	code, _, stderr = capture(t, "drive", "--target", srv.URL, "--scenario", "stocktrader", "-d", "1s", "--progress", "off")
	if code != 2 || !strings.Contains(stderr, "login") || !strings.Contains(stderr, "Welcome to DayTrader") {
		t.Errorf("wrong target: exit %d: %s", code, stderr)
	}
	if n := hits.Load(); n > 2 { // the configuration page and the first request, no load
		t.Errorf("%d requests reached a refused target", n)
	}

	hits.Store(0)
	code, _, stderr = capture(t, "drive", "--url", srv.URL+"/", "-d", "1s", "--progress", "off", "--out", filepath.Join(t.TempDir(), "no", "dir", "r.json"))
	if code != 2 || !strings.Contains(stderr, "--out") || hits.Load() != 0 {
		t.Errorf("unwritable --out: exit %d, %d requests: %s", code, hits.Load(), stderr)
	}
}

// A target that breaks some of its answers (not HTTP): the run completes, its results say INVALID
// with the errors rule, and the exit status is 6 (no threshold given).
// Mutant: Drive returning nil instead of the verdict's error: exit 0.
func TestDriveInvalidExits6(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// the first request (the preflight) passes, then every tenth fails: an answer that is not
		// HTTP (quick mode measures any status as an answer, as wrk does; a broken answer fails)
		if n.Add(1)%10 == 0 {
			if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
				c.Write([]byte("not HTTP\r\n\r\n"))
				c.Close()
				return
			}
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := capture(t, "drive", "--url", srv.URL+"/", "-c", "2", "-d", "1s", "--progress", "off", "--out", out, "--rule-other-cpu", "100%")
	if code != 6 || !strings.HasPrefix(strings.TrimSpace(stdout), "verdict: INVALID") || !strings.Contains(stderr, "INVALID") {
		t.Fatalf("broken answers: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	res, err := report.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if v := res.Validity; v == nil || v.Verdict != report.Invalid || len(v.Reasons) == 0 || v.Reasons[0].Rule != report.RuleErrors || v.Reasons[0].Bound != 0.0001 {
		t.Errorf("validity %+v", res.Validity)
	}
	// an invalid run that also misses a threshold: the verdict wins over the threshold judged on
	// its numbers (mutant: Drive returning only the thresholds' error — exit 3)
	n.Store(0)
	if code, _, stderr := capture(t, "drive", "--url", srv.URL+"/", "-c", "2", "-d", "1s", "--progress", "off", "--min-tps", "1e9", "--rule-other-cpu", "100%"); code != 6 {
		t.Errorf("invalid and below --min-tps: exit %d, want 6\n%s", code, stderr)
	}
	// the bound is the flag's (the count starts again, so this run's preflight request passes too)
	n.Store(0)
	if code, _, _ := capture(t, "drive", "--url", srv.URL+"/", "-c", "2", "-d", "1s", "--progress", "off", "--rule-errors", "20%", "--rule-other-cpu", "100%"); code != 0 {
		t.Errorf("--rule-errors 20%%: exit %d", code)
	}
	if code, _, stderr := capture(t, "drive", "--url", srv.URL+"/", "--rule-driver-cpu", "150%"); code != 2 || !strings.Contains(stderr, "--rule-driver-cpu") {
		t.Errorf("bad rule bound: exit %d %s", code, stderr)
	}
}
