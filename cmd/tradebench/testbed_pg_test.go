package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/report"
)

// bedDir is a directory for the test bed that its database user can enter: up makes the
// throwaway cluster as the postgres user when run as root, and a test's own temporary directory
// (0700, root's) would refuse it (TestTestbedUpSaysWhyItFailed).
func bedDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "tradebench-testbed-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) }) // registered first: runs after down
	return filepath.Join(d, "bed")
}

// pgRestartTest restarts the test bed's PostgreSQL as after a crash (scripts/testbed crash pg:
// pg_ctl restart -m immediate) under a stocktrader drive, and checks what a platform team asks
// of it: the run goes on, every error lies inside the fault's window — which ends when the
// services host reads from the database again, not when pg_ctl returns — the throughput came
// back (the recovery recorded in faults[]), every order placed reaches a final state, the audit
// passes and no order was placed twice.
//
// Nothing here depends on the machine's speed: the restart is timed once without load first,
// and the drive is sized from that and from the fault test's longest window (longest, seconds),
// so that the window closes inside the measured window however slow a restart is; the crash
// starts when the drive says its measured window began.
// Mutant: testbed-pg-window-early (the window ends when the restart was asked for).
func pgRestartTest(ctx context.Context, t *testing.T, dir, bed, target, db string, longest float64, bedCmd func(context.Context, ...string) (string, error)) {
	pidFile := filepath.Join(bed, "pg", "data", "postmaster.pid")
	postmaster := func() string { // the postmaster's pid: the database must be back when crash pg returns
		t.Helper()
		b, err := os.ReadFile(pidFile)
		if err != nil {
			t.Fatalf("the database must be back when crash pg returns: %v", err)
		}
		return strings.SplitN(string(b), "\n", 2)[0]
	}

	// the restart once without load: how long it takes on this machine now
	start := time.Now()
	if out, err := bedCmd(ctx, "crash", "pg"); err != nil {
		t.Fatalf("crash pg: %v\n%s", err, out)
	}
	idle := time.Since(start).Seconds()
	if out, err := smokeCmd(ctx, dir, "reset", "--db", db).CombinedOutput(); err != nil {
		t.Fatalf("reset right after crash pg (the database must be back when it returns): %v\n%s", err, out)
	}
	before := auditSummary(ctx, t, db, false)
	// enough measured seconds for a steady state before the crash, the window at four times the
	// slowest restart seen, and seconds after it for the throughput to come back
	d := 15 + int(math.Ceil(4*max(idle, longest)))
	res := filepath.Join(dir, "pg.json")
	drive := smokeCmd(ctx, dir, "drive", "--target", target, "--scenario", "stocktrader", "--users", "10", "--think", "0.1s",
		"--ramp-up", "0s", "--ramp-down", "0s", "-d", fmt.Sprintf("%ds", d), "--faults", filepath.Join(bed, "faults.jsonl"), "--out", res)
	pr, pw := io.Pipe()
	drive.Stdout, drive.Stderr = pw, pw
	if err := drive.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	measuring := make(chan struct{})
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "[steady") && !strings.Contains(log.String(), "[steady") {
				close(measuring)
			}
			log.WriteString(sc.Text() + "\n")
		}
	}()
	driveDone := make(chan error, 1)
	go func() { err := drive.Wait(); pw.Close(); driveDone <- err }()
	select {
	case <-measuring:
	case err := <-driveDone:
		<-scanned
		t.Fatalf("drive ended before its measured window began: %v\n%s", err, log.String())
	}
	// a few measured seconds before the fault: the steady state its recovery is judged against
	time.Sleep(3 * time.Second)
	pid := postmaster()
	out, err := bedCmd(ctx, "crash", "pg")
	if err != nil {
		t.Fatalf("crash pg under load: %v\n%s", err, out)
	}
	if postmaster() == pid {
		t.Fatalf("crash pg: the postmaster is still pid %s: the database was not restarted", pid)
	}
	derr := <-driveDone
	<-scanned
	t.Logf("drive of %d s (the restart took %.1f s without load, the fault test's longest window %.1f s; exit %v):\n%s", d, idle, longest, derr, log.String())
	rs := readResults(t, res)

	var f report.Fault
	for _, x := range rs.Faults {
		if x.Name == "restart pg (immediate)" {
			f = x
		}
	}
	if len(rs.Faults) != 1 || f.Name == "" {
		t.Fatalf("faults in the results: %+v, want the one restart under load", rs.Faults)
	}
	if f.StartS < rs.Phases.RampUpSeconds || f.EndS > rs.Phases.RampUpSeconds+rs.Phases.SteadySeconds {
		t.Fatalf("the restart's window %.1f–%.1f s fell outside the measured window (phases %+v)", f.StartS, f.EndS, rs.Phases)
	}
	// every error inside the window (the faults rule), none left for the errors rule, nothing lost
	for _, rule := range []string{report.RuleFaults, report.RuleErrors, report.RuleLost} {
		for _, r := range rs.Validity.Rules {
			if r.Rule == rule && r.Outcome != report.RulePass {
				t.Errorf("rule %s: %s (status codes %v; errors %+v)", rule, r, rs.StatusCodes, rs.Errors)
			}
		}
	}
	if rs.StatusCodes["409"] != 0 {
		t.Errorf("a request met its own earlier attempt (409 ×%d): a retry was not idempotent", rs.StatusCodes["409"])
	}
	// the throughput came back after the restart, when the run's noise lets it be measured
	if f.FloorTPS > 0 && !f.Recovered {
		t.Errorf("the throughput never came back after the database restart: %s", f.CostText())
	}
	if !regexp.MustCompile(`fault: restart pg \(immediate\) at [\d.]+–[\d.]+ s of the run: \d+ errors, (recovered in|not recovered|recovery not measured).*worst p99`).MatchString(log.String()) {
		t.Errorf("the summary does not show the restart and what it cost")
	}
	t.Logf("restart pg under load at %.1f–%.1f s of %d: %s; %d transactions passed, status codes %v", f.StartS, f.EndS, d, f.CostText(), rs.Total.Pass, rs.StatusCodes)
	reconcileOrders(ctx, t, dir, db, res, rs, before)
}

// netCutStep cuts the network between the web tiers and the services host (scripts/testbed
// crash net: the proxy net that up puts between them) for a second, without load: the window is
// recorded in faults.jsonl, and afterwards both tiers read from the services host again. What a
// cut does to the connections is TestProxyCut's and TestNetfaultControl's; this is the plumbing.
func netCutStep(ctx context.Context, t *testing.T, bed, net string, bedCmd func(context.Context, ...string) (string, error)) {
	if out, err := bedCmd(ctx, "crash", "net", "--cut", "--for", "1s"); err != nil {
		t.Fatalf("crash net: %v\n%s", err, out)
	}
	faults, err := report.ReadFaults(filepath.Join(bed, "faults.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	last := faults[len(faults)-1]
	if last.Name != "cut web→bsl for 1s" || last.End.Sub(last.Start) < time.Second {
		t.Fatalf("the faults file's last line is %+v, want the 1 s cut", last)
	}
	for _, web := range []string{".2", ".3"} {
		resp, err := http.Get("http://" + net + web + ":8080/daytrader/rest/quotes/s:0")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("web tier %s%s after the cut: status %d", net, web, resp.StatusCode)
		}
	}
}
