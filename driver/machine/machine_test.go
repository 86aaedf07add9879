package machine

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tradebench/tradebench/driver/sut"
	"github.com/tradebench/tradebench/internal/procfs"
	"github.com/tradebench/tradebench/report"
)

// fakeProc writes a proc file system: /proc/stat with the aggregate busy ticks split as given
// (user, softirq, steal) over 2 CPUs, a loadavg, and one stat file per process with its CPU
// ticks.
func fakeProc(t *testing.T, root string, user, softirq, steal uint64, load string, procs map[int]string) {
	t.Helper()
	stat := fmt.Sprintf("cpu  %d 0 0 1000 0 0 %d %d 0 0\ncpu0 1 0 0 1 0 0 0 0 0 0\ncpu1 1 0 0 1 0 0 0 0 0 0\nintr 1\n", user, softirq, steal)
	must(t, os.WriteFile(filepath.Join(root, "stat"), []byte(stat), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "loadavg"), []byte(load+" 1/100 42\n"), 0o644))
	for pid, line := range procs {
		dir := filepath.Join(root, fmt.Sprint(pid))
		must(t, os.MkdirAll(dir, 0o755))
		must(t, os.WriteFile(filepath.Join(dir, "stat"), []byte(line), 0o644))
	}
}

func must(t *testing.T, err error) {
	if err != nil {
		t.Fatal(err)
	}
}

// proc is a /proc/PID/stat line of a process named name that used ticks of CPU (user + system).
func proc(pid int, name string, ticks uint64) string {
	return fmt.Sprintf("%d (%s) S 1 1 1 0 -1 4194560 0 0 0 0 %d %d 0 0 20 0 1 0 100 0 0\n", pid, name, ticks/2, ticks-ticks/2)
}

// kproc is a kernel thread's stat line: a child of kthreadd (pid 2) flagged PF_KTHREAD, its
// ticks all system time (the flags are a real kworker's).
func kproc(pid int, name string, ticks uint64) string {
	return fmt.Sprintf("%d (%s) I 2 0 0 0 -1 69238880 0 0 0 0 0 %d 0 0 20 0 1 0 100 0 0\n", pid, name, ticks)
}

// Over 10 s on 2 cores: the machine was busy 1,600 ticks (1.6 cores: 1,450 user, 50 softirq,
// 100 steal); this process (pid 10) used 600 ticks, a local server (pid 11) 300, a database
// named as the measurement's own 100: own 1.0 core. The kernel: two kworkers 100 ticks (one
// started within the window: all of its ticks count) and the softirq column's 50 — ksoftirqd's
// 50 ticks are that column's too, listed but counted once — 0.15 core. Other user-space
// processes: 1.6 − 1.0 − 0.15 = 0.45 core (0.225 of the machine): two loops took 200 ticks each
// (one started within the window), an idle process none; the rest (0.05 core) ran in processes
// that ended, or was stolen.
// Mutants (scripts/mutants.d/machine-rule): the own processes not subtracted (OtherCores =
// BusyCores) — other was 1.6; a started-in-window process counted from zero dropped — the loop
// group's cores were 0.2. machine-kernel-as-other: the kernel counted as other — other
// was 0.6; machine-kthread-unflagged: kernel threads not recognised — the kworkers were others.
// Pid 40, a kworker, renames itself between the readings (as kworkers do for each work queue):
// the same process by its start time, so only its 50 ticks in the window count, not its whole
// life (mutant machine-reuse-by-name: the pid taken as reused — kernel 0.16).
func TestMeasure(t *testing.T) {
	root := t.TempDir()
	fakeProc(t, root, 10000, 200, 500, "0.50 0.40 0.30", map[int]string{
		10: proc(10, "tradebench", 1000), 11: proc(11, "tradebench serve", 50), 12: proc(12, "postgres", 7),
		20: proc(20, "sh", 30), 30: proc(30, "idle", 5), 40: kproc(40, "kworker/u8:3", 10), 42: kproc(42, "ksoftirqd/0", 0)})
	w := &Watch{cfg: Config{Root: root, Self: 10, SUT: []sut.Source{&sut.Proc{ProcName: "server", Pid: 11}}, OwnNames: []string{"postgres"}}}
	a, ok := w.read(context.Background())
	if !ok {
		t.Fatal("could not read the fake /proc")
	}
	fakeProc(t, root, 11450, 250, 600, "2.50 1.00 0.50", map[int]string{
		10: proc(10, "tradebench", 1600), 11: proc(11, "tradebench serve", 350), 12: proc(12, "postgres", 107),
		20: proc(20, "sh", 230), 21: proc(21, "sh", 200), 30: proc(30, "idle", 5),
		40: kproc(40, "kworker/u8:3-events", 60), 41: kproc(41, "kworker/1:0", 50), 42: kproc(42, "ksoftirqd/0", 50)})
	b, ok := w.read(context.Background())
	if !ok {
		t.Fatal("could not read the fake /proc")
	}
	b.at = a.at.Add(10 * time.Second)
	m := w.measure(a, b)
	if m.Cores != 2 || m.BusyCores != 1.6 || m.StealCores != 0.1 || m.OwnCores != 1.0 || m.KernelCores != 0.15 || m.InterruptCores != 0.05 ||
		m.OtherCores != 0.45 || m.OtherShare != 0.225 {
		t.Errorf("machine %+v", m)
	}
	if len(m.Own) != 3 || m.Own[0].PID != 10 || m.Own[0].Cores != 0.6 || m.Own[2].Name != "postgres" {
		t.Errorf("own %+v", m.Own)
	}
	if len(m.Busiest) != 2 || m.Busiest[0].Name != "sh ×2" || m.Busiest[0].Cores != 0.4 ||
		!strings.HasPrefix(m.Busiest[1].Name, "(ended") || m.Busiest[1].Cores != 0.05 {
		t.Errorf("busiest %+v", m.Busiest)
	}
	if len(m.Kernel) != 2 || m.Kernel[0].Name != "kworker ×2" || m.Kernel[0].Cores != 0.1 || m.Kernel[1].Name != "ksoftirqd" || m.Kernel[1].PID != 42 {
		t.Errorf("kernel %+v", m.Kernel)
	}
	if len(m.LoadStart) != 3 || m.LoadStart[0] != 0.5 || m.LoadEnd[0] != 2.5 {
		t.Errorf("load %v → %v", m.LoadStart, m.LoadEnd)
	}
	if l := m.Line(); !strings.Contains(l, "tradebench 1.00, kernel 0.15, other processes 0.45") {
		t.Errorf("line %q", l)
	}
}

// This machine's real /proc: kthreadd (pid 2) and its children are the kernel's threads, and
// carry the PF_KTHREAD flag (the two ways of telling agree); this process, and init, are not.
// A window measured on the real /proc accounts for the machine's whole busy CPU as ours, the
// kernel's and the others' (to rounding), the kernel's never negative.
// Mutant (scripts/mutants.d/machine-kthread-unflagged): KernelThread always false —
// kthreadd was not a kernel thread.
func TestKernelThreadsOnThisMachine(t *testing.T) {
	procs := procfs.Default.Stats()
	k, ok := procs[2]
	if !ok || k.Name != "kthreadd" {
		t.Skip("no kthreadd in this /proc (a container with its own pid namespace)")
	}
	if !k.KernelThread() {
		t.Errorf("kthreadd %+v is not a kernel thread", k)
	}
	children := 0
	for pid, st := range procs {
		if st.PPID == 2 {
			children++
			if !st.KernelThread() || st.Flags&0x00200000 == 0 {
				t.Errorf("kthreadd's child %d %+v not flagged a kernel thread", pid, st)
			}
		}
	}
	if children == 0 {
		t.Error("kthreadd has no children in /proc")
	}
	if me := procs[os.Getpid()]; me.KernelThread() {
		t.Errorf("this test process %+v taken for a kernel thread", me)
	}
	if one, ok := procs[1]; ok && one.KernelThread() {
		t.Errorf("pid 1 %+v taken for a kernel thread", one)
	}
	w := &Watch{cfg: Config{Root: "/proc", Self: os.Getpid()}}
	a, ok := w.read(context.Background())
	if !ok {
		t.Fatal("could not read /proc")
	}
	time.Sleep(300 * time.Millisecond)
	b, _ := w.read(context.Background())
	m := w.measure(a, b)
	if m == nil || m.KernelCores < 0 || m.OtherCores < 0 {
		t.Fatalf("machine %+v", m)
	}
	if sum := m.OwnCores + m.KernelCores + m.OtherCores; m.OtherCores > 0 && math.Abs(sum-m.BusyCores) > 0.01 {
		t.Errorf("own %.3f + kernel %.3f + other %.3f = %.3f, busy %.3f", m.OwnCores, m.KernelCores, m.OtherCores, sum, m.BusyCores)
	}
}

// Without a proc file system there is no machine section (nil), not a made-up one.
func TestNoProc(t *testing.T) {
	now := time.Now()
	w := Start(context.Background(), Config{Root: filepath.Join(t.TempDir(), "none")}, now, now.Add(10*time.Millisecond))
	time.Sleep(50 * time.Millisecond)
	if m := w.Result(); m != nil {
		t.Errorf("machine %+v from no /proc", m)
	}
}

// netProc writes a fake /proc's TCP table (lines of "local remote state inode", addresses as
// /proc/net/tcp writes them) and the socket descriptors of each process.
func netProc(t *testing.T, root string, socks []string, fds map[int][]string) {
	t.Helper()
	tcp := "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	for i, s := range socks {
		f := strings.Fields(s)
		tcp += fmt.Sprintf("   %d: %s %s %s 00000000:00000000 00:00000000 00000000  1000        0 %s 1\n", i, f[0], f[1], f[2], f[3])
	}
	must(t, os.WriteFile(filepath.Join(root, "net", "tcp"), []byte(tcp), 0o644))
	for pid, inodes := range fds {
		dir := filepath.Join(root, fmt.Sprint(pid), "fd")
		must(t, os.RemoveAll(dir))
		must(t, os.MkdirAll(dir, 0o755))
		for i, ino := range inodes {
			must(t, os.Symlink("socket:["+ino+"]", filepath.Join(dir, fmt.Sprint(3+i))))
		}
	}
}

// A database backend serving the server's connection at the window's start, whose connection
// closed before its end (a pool shrinking), served the system under test in the window: it is
// the measurement's own, found at the first reading; the postmaster, which only listens, is
// not. Made /proc readings: which bucket, exactly.
// Mutant (scripts/mutants.d/machine-followed-end-only): the backends taken from the window's
// end reading only — the backend was another process.
func TestFollowedAtEitherReading(t *testing.T) {
	root := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, "net"), 0o755))
	procs := map[int]string{10: proc(10, "tradebench", 100), 11: proc(11, "server", 100), 12: proc(12, "postgres", 100), 13: proc(13, "postgres", 100)}
	fakeProc(t, root, 1000, 0, 0, "0.1 0.1 0.1", procs)
	listen := "0100007F:1538 00000000:0000 0A 500" // 127.0.0.1:5432, the postmaster's
	netProc(t, root, []string{listen,
		"0100007F:9C40 0100007F:1538 01 501", // the server's end of its connection
		"0100007F:1538 0100007F:9C40 01 502", // the backend's
	}, map[int][]string{11: {"501"}, 12: {"502"}, 13: {"500"}})
	w := &Watch{cfg: Config{Root: root, Self: 10, SUT: []sut.Source{&sut.Proc{ProcName: "server", Pid: 11}}}, roots: []int{11}}
	a, ok := w.read(context.Background())
	if !ok {
		t.Fatal("could not read the fake /proc")
	}
	procs[12] = proc(12, "postgres", 300)
	fakeProc(t, root, 1400, 0, 0, "0.1 0.1 0.1", procs)
	netProc(t, root, []string{listen}, map[int][]string{11: nil, 12: nil, 13: {"500"}})
	b, ok := w.read(context.Background())
	if !ok {
		t.Fatal("could not read the fake /proc")
	}
	b.at = a.at.Add(2 * time.Second)
	m := w.measure(a, b)
	if p := find(m.Own, 12); p == nil || p.Role != report.RoleBackend || p.From != 11 || p.Listen != "127.0.0.1:5432" || p.Cores != 1 {
		t.Errorf("the backend is not among the own processes, serving the server: %+v", m.Own)
	}
	if find(m.Own, 13) != nil {
		t.Errorf("the postmaster counted as own: %+v", m.Own)
	}
}

// A database backend whose connection closed within the window and the one that replaced it are
// both counted (each served the system under test in it), but the summary names the pool's
// size — one at once — with how many were counted beside it, as the sut section's source
// (sut.Followed) names it. Made /proc readings.
// Mutant (scripts/mutants.d/machine-found-count-turns): the count left out of the results —
// the line said "postgres ×2", the turns.
func TestFollowedCountedAtOnce(t *testing.T) {
	root := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, "net"), 0o755))
	procs := map[int]string{10: proc(10, "tradebench", 100), 11: proc(11, "server", 100),
		12: proc(12, "postgres", 100), 13: proc(13, "postgres", 100), 14: proc(14, "postgres", 100)}
	fakeProc(t, root, 1000, 0, 0, "0.1 0.1 0.1", procs)
	listen := "0100007F:1538 00000000:0000 0A 500" // 127.0.0.1:5432, the postmaster's
	netProc(t, root, []string{listen,
		"0100007F:9C40 0100007F:1538 01 501", // the server's end of its first connection
		"0100007F:1538 0100007F:9C40 01 502", // its backend's
	}, map[int][]string{11: {"501"}, 12: {"502"}, 13: {"500"}, 14: nil})
	w := &Watch{cfg: Config{Root: root, Self: 10, SUT: []sut.Source{&sut.Proc{ProcName: "server", Pid: 11}}}, roots: []int{11}}
	a, ok := w.read(context.Background())
	if !ok {
		t.Fatal("could not read the fake /proc")
	}
	fakeProc(t, root, 1400, 0, 0, "0.1 0.1 0.1", procs)
	netProc(t, root, []string{listen,
		"0100007F:9C41 0100007F:1538 01 503", // the replacing connection
		"0100007F:1538 0100007F:9C41 01 504",
	}, map[int][]string{11: {"503"}, 12: nil, 13: {"500"}, 14: {"504"}})
	b, ok := w.read(context.Background())
	if !ok {
		t.Fatal("could not read the fake /proc")
	}
	b.at = a.at.Add(2 * time.Second)
	m := w.measure(a, b)
	if find(m.Own, 12) == nil || find(m.Own, 14) == nil {
		t.Fatalf("both backends are not among the own processes: %+v", m.Own)
	}
	lines := m.SUTFound()
	want := "system under test: postgres ×1 (2 counted) at 127.0.0.1:5432 — backends of server (pid 11)'s own connections"
	if len(lines) != 1 || !strings.HasPrefix(lines[0], want) {
		t.Errorf("summary lines %q, want one starting %q", lines, want)
	}
}

// A named --sut-metrics server on this machine whose scrape fails at the window's end is
// still the measurement's own: its scrape counts nothing, so its CPU is read from /proc, under
// its pid — not hidden, which moved it into the anonymous "ended within the window" bucket.
// Mutant (scripts/mutants.d/machine-scrape-end-unchecked): the process hidden by a scrape that
// failed at the window's end.
func TestScrapeFailingAtTheEnd(t *testing.T) {
	root := t.TempDir()
	var failing atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if failing.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, "process_cpu_seconds_total 1\nprocess_resident_memory_bytes 1000\n")
	}))
	defer srv.Close()
	src, err := sut.NewScrape(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	procs := map[int]string{10: proc(10, "tradebench", 100), 11: proc(11, "server", 100)}
	fakeProc(t, root, 1000, 0, 0, "0.1 0.1 0.1", procs)
	w := &Watch{cfg: Config{Root: root, Self: 10, SUT: []sut.Source{src}}, scrapes: []sut.Source{src}, scraped: [][]int{{11}}, roots: []int{11}}
	a, ok := w.read(context.Background())
	if !ok {
		t.Fatal("could not read the fake /proc")
	}
	failing.Store(true)
	procs[11] = proc(11, "server", 300)
	fakeProc(t, root, 1400, 0, 0, "0.1 0.1 0.1", procs)
	b, ok := w.read(context.Background())
	if !ok {
		t.Fatal("could not read the fake /proc")
	}
	b.at = a.at.Add(2 * time.Second)
	m := w.measure(a, b)
	if p := find(m.Own, 11); p == nil || p.Cores != 1 || m.OwnCores != 1 || m.OtherCores != 1 {
		t.Errorf("the server whose scrape failed is not counted from /proc: own %+v, %+v", m.Own, m)
	}
}
