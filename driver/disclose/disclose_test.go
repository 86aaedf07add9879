package disclose

import (
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
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
	arm := "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n"
	if got := cpuModel([]byte(arm)); got != "CPU part 0xd0c" {
		t.Errorf("ARM cpuinfo without a model: %q", got)
	}
	if got := cpuModel([]byte("processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Gold 6248\n")); got != "Intel(R) Xeon(R) Gold 6248" {
		t.Errorf("x86 cpuinfo: %q", got)
	}
	if got := osRelease([]byte("NAME=\"Alpine Linux\"\nVERSION_ID=3.20\n")); got != "Alpine Linux" {
		t.Errorf("os-release without PRETTY_NAME: %q", got)
	}
	if got := meminfoKB([]byte("MemTotal:       24683624 kB\nMemFree: 1 kB\n"), "MemTotal"); got != 24683624 {
		t.Errorf("meminfo: %d", got)
	}
}
