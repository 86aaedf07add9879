package disclose

import (
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/report"
)

// TestFromThisMachine: the disclosure is read from the real machine, not left blank.
func TestFromThisMachine(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	d := New()
	if d.Hardware.CPUModel == "" {
		t.Error("no CPU model")
	}
	if d.Hardware.Cores != runtime.NumCPU() {
		t.Errorf("cores %d, want runtime.NumCPU() = %d", d.Hardware.Cores, runtime.NumCPU())
	}
	if d.Hardware.MemoryBytes < 64<<20 {
		t.Errorf("memory %d bytes", d.Hardware.MemoryBytes)
	}
	rel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	if !strings.HasPrefix(d.OS.Kernel, "Linux ") || !strings.Contains(d.OS.Kernel, strings.TrimSpace(string(rel))) {
		t.Errorf("kernel %q, want Linux and %q", d.OS.Kernel, rel)
	}
	if _, err := os.Stat("/etc/os-release"); err == nil && d.OS.Distribution == "" {
		t.Error("no distribution, though /etc/os-release exists")
	}
	if d.Software.Go != runtime.Version() || d.Software.Tradebench == "" {
		t.Errorf("software %+v", d.Software)
	}
	if !slices.Equal(d.Command, os.Args) {
		t.Errorf("command %q, want os.Args", d.Command)
	}
}

func TestScenarioHash(t *testing.T) {
	a, b := SHA256([]byte("name: x\nthink: 1s\n")), SHA256([]byte("name: x\nthink: 2s\n"))
	if a == b || len(a) != 64 || a != SHA256([]byte("name: x\nthink: 1s\n")) {
		t.Errorf("hashes %s and %s: want 64 hex digits, equal for equal content only", a, b)
	}
}

func TestParsers(t *testing.T) {
	if got := osRelease([]byte("NAME=\"Alpine Linux\"\nVERSION_ID=3.20\n")); got != "Alpine Linux" {
		t.Errorf("os-release without PRETTY_NAME: %q", got)
	}
}

// TestFill: the disclosure a run's results imply comes from their settings and phases (the
// offered load of the model they ran, the measured window), after the run, and a disclosure the
// command already wrote is kept. Mutants: reading Users in the open model discloses 0 users and
// no rate; filling over an existing disclosure loses the command's configuration.
func TestFill(t *testing.T) {
	res := report.New("x")
	res.Phases = report.Phases{RampUpSeconds: 5, SteadySeconds: 60, RampDownSeconds: 2}
	res.Settings.Model, res.Settings.Rate = report.ModelOpen, 250
	Fill(res)
	d := res.Disclosure
	if d == nil || d.Workload.Rate != 250 || d.Workload.Users != 0 || d.Workload.Phases != res.Phases ||
		!strings.Contains(d.RunRules.MeasuredWindow, "60") || len(d.Command) == 0 {
		t.Fatalf("open model's disclosure: %+v", d)
	}
	closed := report.New("x")
	closed.Settings.Model, closed.Settings.Users = report.ModelClosed, 12
	closed.Disclosure = &report.Disclosure{Configuration: []byte(`{"a":1}`)}
	Fill(closed)
	if string(closed.Disclosure.Configuration) != `{"a":1}` {
		t.Fatalf("an existing disclosure was replaced: %+v", closed.Disclosure)
	}
	closed.Disclosure = nil
	if Fill(closed); closed.Disclosure.Workload.Users != 12 || closed.Disclosure.Workload.Rate != 0 {
		t.Fatalf("closed model's disclosure: %+v", closed.Disclosure.Workload)
	}
	Fill(nil) // nothing to describe, nothing to fail
}
