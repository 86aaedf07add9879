package driver

import (
	"context"
	"math"
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

	"github.com/tradebench/tradebench/driver/machine"
	"github.com/tradebench/tradebench/driver/scenario"
	"github.com/tradebench/tradebench/internal/procfs"
	"github.com/tradebench/tradebench/report"
)

// busyLoops starts n processes that spin on a core each until the test ends: other processes,
// as a neighbour's build would be.
func busyLoops(t *testing.T, n int) []int {
	t.Helper()
	var pids []int
	for range n {
		// spins while the test process lives: a test killed by -timeout (its Cleanup never run)
		// leaves no loop behind
		c := exec.Command("sh", "-c", "while kill -0 $PPID 2>/dev/null; do :; done")
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
	loopsBefore, began := loopTicks(loops), time.Now()
	think := scenario.Think{Kind: scenario.ThinkFixed, A: 10 * time.Millisecond}
	res, err := Drive(context.Background(), Config{URL: srv.URL + "/", Phases: Phases{Users: 4, Think: &think, RampUp: 500 * time.Millisecond,
		Duration: 3 * time.Second}, NoPreflight: true}, HTTP)
	if res == nil {
		t.Fatal(err)
	}
	loopCores := float64(loopTicks(loops)-loopsBefore) / float64(procfs.ClockTicks) / time.Since(began).Seconds()
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
	// the loops are named when they earned a place among the busiest: on a machine where other
	// work (a parallel build, the test's own compilers) outran them, the fair check is that
	// they took less than the last group listed
	earned := len(m.Busiest) < machine.Busiest || loopCores > m.Busiest[len(m.Busiest)-1].Cores+0.05
	if earned && (!named || !strings.Contains(rule.Detail, "sh")) {
		t.Errorf("the busy loops %v (%.2f cores) are not named among the busiest others %+v", loops, loopCores, m.Busiest)
	}
	ownListed := false
	for _, p := range m.Own {
		ownListed = ownListed || p.PID == os.Getpid()
	}
	// this process served and drove every request: its CPU is the measurement's own and is not
	// counted as other processes' (nor is the kernel's work)
	if !ownListed || m.OwnCores <= 0 || math.Abs(m.OtherCores-max(m.BusyCores-m.OwnCores-m.KernelCores, 0)) > 0.002 {
		t.Errorf("own %.3f cores (%+v), other %.3f of busy %.3f: own CPU not subtracted", m.OwnCores, m.Own, m.OtherCores, m.BusyCores)
	}
	if len(m.LoadStart) != 3 || len(m.LoadEnd) != 3 || m.Cores != runtime.NumCPU() {
		t.Errorf("machine %+v", m)
	}
}

// loopTicks is the CPU time the processes have used so far, in clock ticks (0 for one gone).
func loopTicks(pids []int) uint64 {
	var n uint64
	for _, pid := range pids {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		if st, err := procfs.ParseStat(b); err == nil {
			n += st.UTime + st.STime
		}
	}
	return n
}
