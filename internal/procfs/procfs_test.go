package procfs

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// write writes a file of a made proc file system under root.
func write(t *testing.T, root, name, body string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755))
	must(t, os.WriteFile(filepath.Join(root, name), []byte(body), 0o644))
}

func TestParseStat(t *testing.T) {
	// a command name with spaces and parentheses; utime 250, stime 50 ticks = 3 s
	st, err := ParseStat([]byte("1234 (a (weird) name) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 7 -3 20 0 1 0 100 1000 10\n"))
	if err != nil || st.Name != "a (weird) name" || st.PPID != 1 || st.Flags != 4194560 || st.CPUSeconds() != 3 ||
		st.CUTime != 7 || st.CSTime != 0 || st.Start != 100 {
		t.Errorf("ParseStat = %+v, %v", st, err)
	}
	for _, bad := range []string{"1234 (x) S 1", "1234 x S 1 1 1 0 -1 0 0 0 0 0 1 1", "1 (x) S 1 1 1 0 -1 0 0 0 0 0 a b"} {
		if _, err := ParseStat([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// A kernel thread is told by the kernel's PF_KTHREAD flag alone: a user's process that is pid 2
// in a PID namespace (unshare -fp --mount-proc), and its children, are not kernel threads, and
// a name set with an escape sequence (prctl PR_SET_NAME) comes out escaped.
// Mutant (scripts/mutants.d/machine-kthread-by-parent): kthreadd's children taken for kernel
// threads without the flag — the namespace's burner was one.
func TestKernelThreadByFlagAlone(t *testing.T) {
	for _, c := range []struct {
		line string
		want bool
	}{
		{"2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 5 0 0 20 0 1 0 1 0 0", true},
		{"57 (kworker/1:1) I 2 0 0 0 -1 69238880 0 0 0 0 0 9 0 0 20 0 1 0 5 0 0", true},
		{"2 (burner) R 0 1 1 0 -1 4194560 0 0 0 0 66 0 0 0 20 0 1 0 900 0 0", false}, // pid 2 of a namespace
		{"9 (burner) R 2 1 1 0 -1 4194560 0 0 0 0 66 0 0 0 20 0 1 0 901 0 0", false}, // its child
	} {
		st, err := ParseStat([]byte(c.line))
		if err != nil || st.KernelThread() != c.want {
			t.Errorf("%q: kernel thread %v (%v), want %v", c.line, st.KernelThread(), err, c.want)
		}
	}
	st, err := ParseStat([]byte("77 (\x1b[2Jevil) S 1 1 1 0 -1 4194560 0 0 0 0 1 1 0 0 20 0 1 0 9 0 0"))
	if err != nil || strings.ContainsRune(st.Name, 0x1b) || !strings.Contains(st.Name, "evil") {
		t.Errorf("a name with an escape: %q (%v)", st.Name, err)
	}
}

func TestParseStatus(t *testing.T) {
	s := ParseStatus([]byte("Name:\tx\nUid:\t1000\t1000\t1000\t1000\nVmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\n"))
	if s.RSS != 1024<<10 || s.PeakRSS != 2048<<10 || s.UID != 1000 {
		t.Errorf("status %+v", s)
	}
	// a kernel thread: no memory lines
	if s := ParseStatus([]byte("Name:\tkworker\nUid:\t0\t0\t0\t0\n")); s.RSS != 0 || s.PeakRSS != 0 || s.UID != 0 {
		t.Errorf("kernel thread's status %+v", s)
	}
	if s := ParseStatus([]byte("Name:\tx\nUid:\tx\n")); s.UID != -1 {
		t.Errorf("an unreadable Uid: %+v", s)
	}
}

// A made file system: the machine's CPU and load, the processes listed and read, a process
// gone or unparsable left out, the memory and the kernel.
func TestMadeFS(t *testing.T) {
	root := t.TempDir()
	write(t, root, "stat", "cpu  100 5 20 1000 7 3 2 9 4 0\ncpu0 1 0 0 1 0 0 0 0 0 0\ncpu1 1 0 0 1 0 0 0 0 0 0\nintr 1\n")
	write(t, root, "loadavg", "0.50 0.40 0.30 1/100 42\n")
	write(t, root, "10/stat", "10 (tradebench) S 1 1 1 0 -1 4194560 0 0 0 0 30 20 0 0 20 0 1 0 100 0 0\n")
	write(t, root, "10/status", "Name:\ttradebench\nUid:\t7\t7\t7\t7\nVmHWM:\t  8 kB\nVmRSS:\t  4 kB\n")
	write(t, root, "11/stat", "11 (broken)\n")
	write(t, root, "self/status", "Name:\tme\nVmHWM:\t  16 kB\nVmRSS:\t  12 kB\n")
	write(t, root, "meminfo", "MemTotal:       24683624 kB\nMemFree: 1 kB\n")
	write(t, root, "cpuinfo", "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Gold 6248\n")
	write(t, root, "sys/kernel/ostype", "Linux\n")
	write(t, root, "sys/kernel/osrelease", "6.1.0-18-amd64\n")
	fs := FS(root)
	if c, err := fs.CPU(); err != nil || c != (CPU{Busy: 100 + 5 + 20 + 3 + 2 + 9, Steal: 9, IRQ: 5, Cores: 2}) {
		t.Errorf("CPU %+v, %v", c, err)
	}
	if l := fs.LoadAvg(); !slices.Equal(l, []float64{0.5, 0.4, 0.3}) {
		t.Errorf("load %v", l)
	}
	stats := fs.Stats()
	if len(stats) != 1 || stats[10].Name != "tradebench" || stats[10].CPUSeconds() != 0.5 {
		t.Errorf("stats %+v", stats)
	}
	if s, err := fs.Status(10); err != nil || s != (Status{RSS: 4 << 10, PeakRSS: 8 << 10, UID: 7}) {
		t.Errorf("status %+v, %v", s, err)
	}
	if s, err := fs.SelfStatus(); err != nil || s.RSS != 12<<10 || s.PeakRSS != 16<<10 {
		t.Errorf("self status %+v, %v", s, err)
	}
	if _, err := fs.Stat(12); !os.IsNotExist(err) {
		t.Errorf("a process gone: %v", err)
	}
	if m := fs.MemTotal(); m != 24683624<<10 {
		t.Errorf("memory %d", m)
	}
	if m := fs.CPUModel(); m != "Intel(R) Xeon(R) Gold 6248" {
		t.Errorf("model %q", m)
	}
	if k, ok := fs.Kernel(); !ok || k != "Linux 6.1.0-18-amd64" {
		t.Errorf("kernel %q, %v", k, ok)
	}
	none := FS(filepath.Join(root, "none"))
	if _, err := none.CPU(); err == nil || none.Stats() != nil || none.LoadAvg() != nil || none.MemTotal() != 0 || none.CPUModel() != "" {
		t.Error("a missing file system read as something")
	}
	if _, ok := none.Kernel(); ok {
		t.Error("a missing kernel read")
	}
}

func TestParsers(t *testing.T) {
	arm := "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n"
	if got := cpuModel([]byte(arm)); got != "CPU part 0xd0c" {
		t.Errorf("ARM cpuinfo without a model: %q", got)
	}
	if got := meminfoKB([]byte("MemTotal:       24683624 kB\nMemFree: 1 kB\n"), "MemTotal"); got != 24683624 {
		t.Errorf("meminfo: %d", got)
	}
	if _, err := ParseCPU([]byte("cpu  1 2 3\n")); err == nil {
		t.Error("a /proc/stat without cpuN lines accepted")
	}
}

// The TCP table as a little-endian machine writes it (32-bit words in the machine's byte
// order, an IPv4-mapped IPv6 socket), and the sockets a process's descriptors hold, found by
// their links.
func TestTCPAndHolders(t *testing.T) {
	if !littleEndian() {
		t.Skip("the table below is a little-endian machine's")
	}
	root := t.TempDir()
	head := "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	write(t, root, "net/tcp", head+
		"   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 111 1\n"+
		"   1: 0100007F:1F92 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000        0 333 1\n"+
		"   2: garbage\n")
	write(t, root, "net/tcp6", head+
		"   0: 0000000000000000FFFF00000100007F:1F93 00000000000000000000000000000000:0000 0A "+
		"00000000:00000000 00:00000000 00000000  1000        0 444 1\n")
	socks, err := FS(root).TCP()
	if err != nil || len(socks) != 3 {
		t.Fatalf("sockets %+v, %v", socks, err)
	}
	if k := socks[0]; !k.IP.Equal(net.IPv4(127, 0, 0, 1)) || k.Port != 8080 || !k.Listening || k.Established || k.Inode != 111 {
		t.Errorf("listening socket %+v", k)
	}
	if k := socks[1]; !k.RemoteIP.Equal(net.IPv4(127, 0, 0, 1)) || k.RemotePort != 50000 || !k.Established || k.Inode != 333 {
		t.Errorf("established socket %+v", k)
	}
	if k := socks[2]; !k.IP.Equal(net.IPv4(127, 0, 0, 1)) || k.Port != 8083 || k.Inode != 444 {
		t.Errorf("IPv4-mapped socket %+v", k)
	}
	for pid, links := range map[int][]string{20: {"socket:[111]", "pipe:[5]", "/dev/null"}, 21: {"socket:[111]", "socket:[333]"}} {
		dir := filepath.Join(root, fmt.Sprint(pid), "fd")
		must(t, os.MkdirAll(dir, 0o755))
		for i, l := range links {
			must(t, os.Symlink(l, filepath.Join(dir, fmt.Sprint(i))))
		}
	}
	if s, err := FS(root).Sockets(21); err != nil || !slices.Equal(s, []uint64{111, 333}) && !slices.Equal(s, []uint64{333, 111}) {
		t.Errorf("sockets of 21: %v, %v", s, err)
	}
	held, unreadable := FS(root).Holders(map[uint64]bool{111: true, 333: true})
	slices.Sort(held[111])
	if !slices.Equal(held[111], []int{20, 21}) || !slices.Equal(held[333], []int{21}) || unreadable != 0 {
		t.Errorf("holders %v, %d unreadable", held, unreadable)
	}
	if _, err := FS(filepath.Join(root, "none")).TCP(); err == nil {
		t.Error("no TCP table read as an empty one")
	}
}

func littleEndian() bool {
	ip, _, ok := parseAddr([]byte("0100007F:0001"))
	return ok && bytes.Equal(ip, []byte{127, 0, 0, 1})
}

// The real /proc: this process's own reading, and a file larger than one buffer read whole.
func TestThisMachine(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc on this system")
	}
	st, err := Default.Stat(os.Getpid())
	if err != nil || st.Name == "" || st.KernelThread() {
		t.Errorf("this process: %+v, %v", st, err)
	}
	s, err := FS("").SelfStatus()
	if err != nil || s.RSS <= 0 || s.PeakRSS < s.RSS || s.UID != os.Getuid() {
		t.Errorf("this process's status %+v, %v", s, err)
	}
	big := strings.Repeat("x", 100_000)
	path := filepath.Join(t.TempDir(), "big")
	must(t, os.WriteFile(path, []byte(big), 0o644))
	var got string
	must(t, read(path, func(b []byte) error { got = string(b); return nil }))
	if got != big {
		t.Errorf("a 100,000-byte file read as %d bytes", len(got))
	}
}
