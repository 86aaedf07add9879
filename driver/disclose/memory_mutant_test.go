package disclose

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestMemoryIsMemTotalInBytes: the disclosed memory is exactly /proc/meminfo's MemTotal, which
// the file gives in kB (KiB), times 1024 — read here from the same file with a parser of the
// test's own, so the check holds on any host. (TestFromThisMachine's "at least 64 MiB" caught a
// kB read as bytes only on hosts with less than 64 GiB.)
//
// Mutant killed: the kB not converted (`meminfoKB(b, "MemTotal")` without `<< 10` in
// internal/procfs's MemTotal; scripts/mutants.d/disclose-meminfo-kb).
func TestMemoryIsMemTotalInBytes(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Skip(err)
	}
	var kb int64 = -1
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "MemTotal:" && f[2] == "kB" {
			kb, err = strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if kb <= 0 {
		t.Fatalf("no MemTotal in kB in /proc/meminfo:\n%s", b)
	}
	if got := Hardware().MemoryBytes; got != kb*1024 {
		t.Fatalf("memory %d bytes, want MemTotal %d kB × 1024 = %d", got, kb, kb*1024)
	}
}
