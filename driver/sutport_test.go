package driver

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/driver/sut"
	"github.com/tradebench/tradebench/internal/testing/syncbuf"
	"github.com/tradebench/tradebench/report"
)

// busyChildServer starts this test binary again as an HTTP server on a loopback port that also
// spins on a core, and returns its pid and address.
func busyChildServer(t *testing.T) (int, string) {
	t.Helper()
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("no /proc/net/tcp on this system")
	}
	cmd, out := child(t, "TB_CHILD=server", "TB_SPIN=1")
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := out.ReadString('\n')
	if err != nil || strings.HasPrefix(line, "ERR") {
		t.Fatalf("the child server did not start: %q %v", line, err)
	}
	return cmd.Process.Pid, strings.TrimSpace(line)
}

// A drive against a server on this machine that it did not start and was not told of — a
// separate process, busy — counts that server as the system under test: found by its port, its
// CPU among the machine's own processes (not the busiest others), its CPU and memory in the
// sut section with the address, said on the progress writer and in the summary. Told of a
// server (Resources: drive --sut-metrics, or a job's own), the drive looks for nothing: what it
// was told wins.
// Mutants (scripts/mutants.d): sut-by-port-off (nothing looked for) — no own server, no sut
// section; sut-by-port-overrides-named (looked for although told) — two sut processes.
func TestDriveCountsTheServerFoundByPort(t *testing.T) {
	pid, addr := busyChildServer(t)
	name := filepath.Base(os.Args[0])
	name = name[:min(len(name), 15)] // the kernel's command name
	var progress syncbuf.Buffer
	cfg := Config{URL: "http://" + addr + "/", Phases: Phases{Users: 2, Duration: 2 * time.Second}, Progress: &progress}
	res, err := Drive(context.Background(), cfg, HTTP)
	if res == nil {
		t.Fatal(err)
	}
	m := res.Machine
	if m == nil {
		t.Fatal("no machine section")
	}
	t.Logf("machine: %s", m.Line())
	found := fmt.Sprintf("system under test: %s (pid %d), listening on %s — found by its port, its CPU counted as the measurement's own", name, pid, addr)
	var own *report.MachineProcess
	for i, p := range m.Own {
		if p.PID == pid {
			own = &m.Own[i]
		}
	}
	if own == nil || own.Listen != addr || own.Cores <= 0 {
		t.Errorf("the busy server is not among the own processes with its address and CPU: %+v", m.Own)
	}
	for _, p := range m.Busiest {
		if p.PID == pid || strings.HasPrefix(p.Name, name+" ×") {
			t.Errorf("the server found by its port is among the busiest others: %+v", m.Busiest)
		}
	}
	if res.SUT == nil || len(res.SUT.Processes) != 1 || res.SUT.Processes[0].PID != pid || res.SUT.Processes[0].Listen != addr || res.SUT.Processes[0].CPUSeconds <= 0 {
		t.Errorf("sut section: %+v", res.SUT)
	}
	if !strings.Contains(progress.String(), found+"\n") {
		t.Errorf("progress lacks %q:\n%s", found, progress.String())
	}
	var sum strings.Builder
	res.WriteSummary(&sum)
	if found, _, _ := strings.Cut(found, " counted as"); !strings.Contains(sum.String(), "\n"+found+" (") { // with its cores
		t.Errorf("summary lacks %q:\n%s", found, sum.String())
	}

	// told of it (under another name), the drive counts what it was told, and only that
	cfg.Resources, cfg.Progress = []sut.Source{&sut.Proc{ProcName: "named", Pid: pid}}, &syncbuf.Buffer{}
	cfg.Duration = time.Second
	res, err = Drive(context.Background(), cfg, HTTP)
	if res == nil {
		t.Fatal(err)
	}
	if res.SUT == nil || len(res.SUT.Processes) != 1 || res.SUT.Processes[0].Name != "named" || res.SUT.Processes[0].Listen != "" {
		t.Errorf("told of the server, the sut section is %+v", res.SUT)
	}
	if res.Machine != nil && len(res.Machine.SUTFound()) > 0 {
		t.Errorf("told of the server, the drive still found one: %q", res.Machine.SUTFound())
	}
}

// What the drive says when it finds no server: why, for a loopback target nobody listens on
// (the server, if it ran here, would count as other processes'); nothing for a target on
// another machine, whose server is not this machine's to count. Neither adds a resource.
func TestSUTByPortNotFound(t *testing.T) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("no /proc/net/tcp on this system")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	free := ln.Addr().String()
	ln.Close()
	var cfg Config
	if why := sutByPort(&cfg, "http://"+free+"/"); why != "nothing listens on "+free || cfg.Resources != nil {
		t.Errorf("a free loopback port: %q, %v", why, cfg.Resources)
	}
	if why := sutByPort(&cfg, "http://10.20.30.40:8080/"); why != "" || cfg.Resources != nil {
		t.Errorf("a target elsewhere: %q, %v", why, cfg.Resources)
	}
	if why := sutByPort(&cfg, ""); why != "" || cfg.Resources != nil {
		t.Errorf("an in-process workload: %q, %v", why, cfg.Resources)
	}
}

// A load agent on the machine of the server it drives counts that server as its machine's own
// too (an agent's plan runs without the controller's resources): Plan.Run finds it by its port.
// Mutant (scripts/mutants.d/sut-by-port-off): nothing looked for — the server was not own.
func TestAgentCountsTheServerFoundByPort(t *testing.T) {
	pid, addr := busyChildServer(t)
	cfg := Config{URL: "http://" + addr + "/", Phases: Phases{Users: 1, Duration: time.Second}}
	cfg.SetDefaults()
	plan, err := NewPlan(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := plan.Run(context.Background(), time.Time{})
	if res == nil || res.Machine == nil {
		t.Fatalf("no machine section: %v", err)
	}
	if lines := res.Machine.SUTFound(); len(lines) != 1 || !strings.Contains(lines[0], fmt.Sprintf("(pid %d), listening on %s — found by its port", pid, addr)) {
		t.Errorf("the agent's machine: own %+v", res.Machine.Own)
	}
}
