package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/testing/syncbuf"
	"github.com/tradebench/tradebench/report"
)

// interrupt starts a real tradebench process with args in dir, sends it sig once its output
// matches after (a regular expression), and returns its exit status and output.
func interrupt(t *testing.T, dir string, sig os.Signal, after string, args ...string) (int, string) {
	t.Helper()
	cmd := smokeCmd(context.Background(), dir, args...)
	var out syncbuf.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(2 * time.Minute)
	seen := regexp.MustCompile(after)
	for !seen.MatchString(out.String()) {
		select {
		case err := <-exited:
			t.Fatalf("tradebench %v ended (%v) before %q:\n%s", args, err, after, out.String())
		case <-deadline:
			t.Fatalf("tradebench %v: no %q within two minutes:\n%s", args, after, out.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), out.String()
	case <-time.After(time.Minute):
		t.Fatalf("tradebench %v did not end within a minute of %v:\n%s", args, sig, out.String())
	}
	return 0, ""
}

// checkInterrupted checks what an interrupted run leaves: exit 130, the words, the results with
// the verdict "interrupted" and its report beside them.
func checkInterrupted(t *testing.T, code int, out, results string) *report.Results {
	t.Helper()
	if code != exitInterrupted || !strings.Contains(out, "interrupted; partial results kept") {
		t.Fatalf("exit %d, want %d and \"interrupted; partial results kept\":\n%s", code, exitInterrupted, out)
	}
	res, err := report.ReadFile(results)
	if err != nil {
		t.Fatalf("no results kept: %v\n%s", err, out)
	}
	if res.Validity == nil || res.Validity.Verdict != report.Interrupted {
		t.Fatalf("verdict %+v, want interrupted", res.Validity)
	}
	if _, err := os.Stat(strings.TrimSuffix(results, ".json") + ".html"); err != nil {
		t.Errorf("no report beside the results: %v", err)
	}
	return res
}

// TestInterruptedSearchKeepsItsSteps: SIGINT during `tradebench run`'s capacity search keeps
// the steps that finished, with the verdict "interrupted", and exits 130. Mutants:
// pipeline-interrupt-unmarked (the interrupted run judged as if it had ended: its verdict is not
// "interrupted") and exit-interrupted-internal (the exit table without its 130 row: exit 1).
func TestInterruptedSearchKeepsItsSteps(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "search.json")
	code, text := interrupt(t, dir, os.Interrupt, `(grow|shrink|bisect|remeasure) ([3-9]|[1-9][0-9]+) \(`, "run", "--work-dir", filepath.Join(dir, "work"), "--accounts", "200", "--quotes", "50",
		"--peak-start", "2", "--peak-ramp-up", "0s", "--peak-step-duration", "1s", "--progress", "on", "--out", out)
	res := checkInterrupted(t, code, text, out)
	if res.Peak == nil || len(res.Peak.Steps) < 2 {
		t.Fatalf("the search's finished steps are not kept: %+v", res.Peak)
	}
	if res.Total.Count == 0 {
		t.Errorf("the last finished step's transactions are not kept: %+v", res.Total)
	}
}

// TestInterruptedDriveKeepsWhatRan: SIGTERM during a drive writes what was measured until then
// (the cut steady state), verdict "interrupted", exit 130. Mutant: exit-interrupted-internal.
func TestInterruptedDriveKeepsWhatRan(t *testing.T) {
	t.Parallel() // it mostly waits (runs of fixed length, a browser, servers starting): alongside the other long ones (docs/guide.md, "The CI budget")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "drive.json")
	code, text := interrupt(t, dir, syscall.SIGTERM, `\[steady`, "drive", "--url", srv.URL+"/", "-c", "2", "--ramp-up", "1s", "-d", "5m", "--progress", "on", "--out", out)
	res := checkInterrupted(t, code, text, out)
	if res.Total.Count == 0 || res.SteadySeconds <= 0 || res.SteadySeconds > 60 {
		t.Errorf("the cut run's measurements: %d transactions over %.1f s of steady state", res.Total.Count, res.SteadySeconds)
	}
}
