package machine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/driver/sut"
)

// fakeProc writes a proc file system: /proc/stat with the aggregate busy ticks split as given
// (user, steal) over 2 CPUs, a loadavg, and one stat file per process with its CPU ticks.
func fakeProc(t *testing.T, root string, user, steal uint64, load string, procs map[int]string) {
	t.Helper()
	stat := fmt.Sprintf("cpu  %d 0 0 1000 0 0 0 %d 0 0\ncpu0 1 0 0 1 0 0 0 0 0 0\ncpu1 1 0 0 1 0 0 0 0 0 0\nintr 1\n", user, steal)
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
	return fmt.Sprintf("%d (%s) S 1 1 1 0 -1 0 0 0 0 0 %d %d 0 0 20 0 1 0 100 0 0\n", pid, name, ticks/2, ticks-ticks/2)
}

// Over 10 s on 2 cores: the machine was busy 1,600 ticks (1.6 cores: 1,500 user, 100 steal);
// this process (pid 10) used 600 ticks, a local server (pid 11) 300, a database named as the
// measurement's own 100: own 1.0 core, other 0.6 (0.3 of the machine). Two loops took 200
// ticks each (one started within the window: all of its ticks count), an idle process none;
// the rest (0.2 core) ran in processes that ended, or was stolen.
// Mutants (scripts/mutants.d/machine-rule): the own processes not subtracted (OtherCores =
// BusyCores) — other was 1.6; a started-in-window process counted from zero dropped — the loop
// group's cores were 0.2.
func TestMeasure(t *testing.T) {
	root := t.TempDir()
	fakeProc(t, root, 10000, 500, "0.50 0.40 0.30", map[int]string{
		10: proc(10, "tradebench", 1000), 11: proc(11, "tradebench serve", 50), 12: proc(12, "postgres", 7),
		20: proc(20, "sh", 30), 30: proc(30, "idle", 5)})
	w := &Watch{cfg: Config{Root: root, Self: 10, SUT: []sut.Source{&sut.Proc{ProcName: "server", Pid: 11}}, OwnNames: []string{"postgres"}}}
	a, ok := w.read(context.Background())
	if !ok {
		t.Fatal("could not read the fake /proc")
	}
	fakeProc(t, root, 11500, 600, "2.50 1.00 0.50", map[int]string{
		10: proc(10, "tradebench", 1600), 11: proc(11, "tradebench serve", 350), 12: proc(12, "postgres", 107),
		20: proc(20, "sh", 230), 21: proc(21, "sh", 200), 30: proc(30, "idle", 5)})
	b, ok := w.read(context.Background())
	if !ok {
		t.Fatal("could not read the fake /proc")
	}
	b.at = a.at.Add(10 * time.Second)
	m := w.measure(a, b)
	if m.Cores != 2 || m.BusyCores != 1.6 || m.StealCores != 0.1 || m.OwnCores != 1.0 || m.OtherCores != 0.6 || m.OtherShare != 0.3 {
		t.Errorf("machine %+v", m)
	}
	if len(m.Own) != 3 || m.Own[0].PID != 10 || m.Own[0].Cores != 0.6 || m.Own[2].Name != "postgres" {
		t.Errorf("own %+v", m.Own)
	}
	if len(m.Busiest) != 2 || m.Busiest[0].Name != "sh ×2" || m.Busiest[0].Cores != 0.4 || !strings.HasPrefix(m.Busiest[1].Name, "(ended") || m.Busiest[1].Cores != 0.2 {
		t.Errorf("busiest %+v", m.Busiest)
	}
	if len(m.LoadStart) != 3 || m.LoadStart[0] != 0.5 || m.LoadEnd[0] != 2.5 {
		t.Errorf("load %v → %v", m.LoadStart, m.LoadEnd)
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

func TestLoopback(t *testing.T) {
	for u, want := range map[string]bool{"http://127.0.0.1:9464/metrics": true, "http://[::1]:1/m": true, "http://localhost:1/": true,
		"http://web1:9464/metrics": false, "proc": false, "http://10.0.0.1/": false} {
		if loopback(u) != want {
			t.Errorf("loopback(%q) = %v", u, !want)
		}
	}
}
