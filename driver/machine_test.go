package driver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/driver/scenario"
	"github.com/tradebench/tradebench/report"
)

// busyLoops starts n processes that spin on a core each until the test ends: other processes,
// as a neighbour's build would be.
func busyLoops(t *testing.T, n int) []int {
	t.Helper()
	var pids []int
	for range n {
		c := exec.Command("sh", "-c", "while :; do :; done")
		if err := c.Start(); err != nil {
			t.Skip("no sh to spin:", err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		pids = append(pids, c.Process.Pid)
	}
	return pids
}

// A real run with a busy loop on every core of the machine is not valid: the other_processes
// rule makes it inconclusive, names the share and the loops among the busiest other processes,
// and the machine section counts this process (driver and in-process server, which burns CPU
// on every request) as the measurement's own, not as other processes. The loops are sure to
// take far more than a tenth of the machine however fast it is — a loop per core, against a
// driver that thinks 10 ms between requests — so the test does not depend on the machine's
// speed.
// Mutants (scripts/mutants.d/machine-rule): the rule removed from Evaluate — the verdict was
// valid or named only other rules; the own processes not subtracted (OtherCores = BusyCores)
// — the other-cores assertion failed.
func TestBusyMachineIsNotValid(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// burn a little CPU in this process: the server's work is the measurement's own
		x := 1
		for i := range 200000 {
			x = x*31 + i
		}
		w.Write([]byte(strconv.Itoa(x)))
	}))
	t.Cleanup(srv.Close)
	loops := busyLoops(t, runtime.NumCPU())
	think := scenario.Think{Kind: scenario.ThinkFixed, A: 10 * time.Millisecond}
	res, err := Drive(context.Background(), Config{URL: srv.URL + "/", Phases: Phases{Users: 4, Think: &think, RampUp: 500 * time.Millisecond,
		Duration: 3 * time.Second}, NoPreflight: true}, HTTP)
	if res == nil {
		t.Fatal(err)
	}
	m := res.Machine
	if m == nil {
		t.Fatal("no machine section")
	}
	t.Logf("machine: %s", m.Line())
	v := res.Validity
	var rule *report.RuleResult
	for i := range v.Reasons {
		if v.Reasons[i].Rule == report.RuleOther {
			rule = &v.Reasons[i]
		}
	}
	if v.Verdict == report.Valid || rule == nil || rule.Outcome != report.RuleInconclusive {
		t.Fatalf("verdict %s, reasons %+v: want other_processes inconclusive", v.Verdict, v.Reasons)
	}
	if !strings.Contains(rule.Detail, "other processes took") || !strings.Contains(rule.Detail, "busiest: ") || rule.Value <= 0.1 {
		t.Errorf("detail %q value %g", rule.Detail, rule.Value)
	}
	// the loops are named: "sh ×2" (grouped by name), or "sh (pid N)" for one core
	named := false
	for _, p := range m.Busiest {
		named = named || p.Name == "sh" && slices.Contains(loops, p.PID) || strings.HasPrefix(p.Name, "sh ×")
		if p.PID == os.Getpid() {
			t.Errorf("this process is named among the others: %+v", m.Busiest)
		}
	}
	if !named || !strings.Contains(rule.Detail, "sh") {
		t.Errorf("the busy loops %v are not named among the busiest others %+v", loops, m.Busiest)
	}
	ownListed := false
	for _, p := range m.Own {
		ownListed = ownListed || p.PID == os.Getpid()
	}
	// this process served and drove every request: its CPU is the measurement's own and is not
	// counted as other processes'
	if !ownListed || m.OwnCores < 0.02 || m.OtherCores > m.BusyCores-m.OwnCores+0.01 {
		t.Errorf("own %.3f cores (%+v), other %.3f of busy %.3f: own CPU not subtracted", m.OwnCores, m.Own, m.OtherCores, m.BusyCores)
	}
	if len(m.LoadStart) != 3 || len(m.LoadEnd) != 3 || m.Cores != runtime.NumCPU() {
		t.Errorf("machine %+v", m)
	}
}
