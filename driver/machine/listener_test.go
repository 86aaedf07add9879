package machine

import (
	"context"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/tradebench/tradebench/driver/sut"
	"github.com/tradebench/tradebench/internal/metrics"
	"github.com/tradebench/tradebench/internal/testing/pgtest"
	"github.com/tradebench/tradebench/internal/testing/reexec"
	"github.com/tradebench/tradebench/report"
)

// childEnv makes this test binary, re-executed, a busy server: it serves its process metrics
// (/metrics) on a loopback port it prints, and spins on a core until killed — the system under
// test on this machine, doing work.
const childEnv = "TRADEBENCH_MACHINE_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "web-tier" {
		// an idle server holding a connection to its services host, as a web tier's pool does
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(1)
		}
		c, err := net.Dial("tcp", os.Getenv(childEnv+"_BACKEND"))
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(1)
		}
		defer c.Close()
		fmt.Println(ln.Addr())
		time.Sleep(time.Hour)
		os.Exit(0)
	}
	if os.Getenv(childEnv) == "pg-client" {
		// another client of the database: it prints its backend's pid and holds its connection
		ctx := context.Background()
		c, err := pgx.Connect(ctx, os.Getenv(childEnv+"_DSN"))
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(1)
		}
		var pid int
		if err := c.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
			fmt.Println("ERR", err)
			os.Exit(1)
		}
		fmt.Println(pid)
		time.Sleep(time.Hour)
		os.Exit(0)
	}
	if os.Getenv(childEnv) == "busy-server" {
		ep, err := metrics.Listen(context.Background(), "127.0.0.1:0", metrics.NewRegistry(), nil)
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(1)
		}
		fmt.Println(ep.Addr())
		for x := 0; ; x++ { // one core's worth of work until killed
			_ = x * x
		}
	}
	pgtest.Main(m)
}

// busyServer starts the busy server child and returns its pid and address.
func busyServer(t *testing.T) (int, string) {
	t.Helper()
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("no /proc/net/tcp on this system")
	}
	pid, line := reexec.Start(t, childEnv+"=busy-server")
	if strings.HasPrefix(line, "ERR") {
		t.Fatalf("the child did not listen: %s", line)
	}
	return pid, line
}

// window measures the machine under cfg for two seconds from now, several configurations over
// the same window at once.
func window(t *testing.T, cfgs ...Config) []*report.Machine {
	t.Helper()
	from := time.Now().Add(100 * time.Millisecond)
	var ws []*Watch
	for _, c := range cfgs {
		ws = append(ws, Start(context.Background(), c, from, from.Add(2*time.Second)))
	}
	time.Sleep(time.Until(from.Add(2*time.Second + 500*time.Millisecond)))
	var ms []*report.Machine
	for i, w := range ws {
		m := w.Result()
		if m == nil {
			t.Fatalf("watch %d measured nothing", i)
		}
		ms = append(ms, m)
	}
	return ms
}

func find(ps []report.MachineProcess, pid int) *report.MachineProcess {
	for i := range ps {
		if ps[i].PID == pid {
			return &ps[i]
		}
	}
	return nil
}

// listed reports whether a process is in a list of others: by its pid, or in a group of its
// name ("machine.test ×2": the child is named as this test process is).
func listed(ps []report.MachineProcess, pid int, name string) bool {
	return find(ps, pid) != nil || slices.ContainsFunc(ps, func(p report.MachineProcess) bool { return strings.HasPrefix(p.Name, name+" ×") })
}

// A busy server found by its port (sut.FindServer, as a drive against a loopback target finds
// it) is the measurement's own: over the same window, a watch told of it puts the child among
// its own processes, with the address, and not among the busiest others; a watch not told of
// it does not count it as its own. What the finder finds and which bucket, never a CPU rank: on
// a loaded machine the child may get too little CPU to be among the busiest.
// Mutant (scripts/mutants.d/machine-own-listed-other): an own process also added to the other
// processes' groups (killed by TestMeasure, whose numbers are made).
func TestServerFoundByPortIsOwn(t *testing.T) {
	pid, addr := busyServer(t)
	srv, err := sut.FindServer("http://"+addr+"/", false)
	if err != nil || len(srv.Serving) != 1 || srv.Serving[0].PID != pid {
		t.Fatalf("the busy server (pid %d) not found on %s: %+v, %v", pid, addr, srv, err)
	}
	ls := srv.Serving
	ms := window(t, Config{SUT: []sut.Source{ls[0].Source("")}}, Config{})
	told, blind := ms[0], ms[1]
	t.Logf("told: %s", told.Line())
	t.Logf("blind: %s", blind.Line())
	own := find(told.Own, pid)
	if own == nil || own.Listen != addr {
		t.Errorf("the found server is not among the own processes with its address: %+v", told.Own)
	}
	if listed(told.Busiest, pid, ls[0].Name) {
		t.Errorf("the found server is among the busiest others: %+v", told.Busiest)
	}
	want := fmt.Sprintf("(pid %d), listening on %s — found by its port", pid, addr)
	if lines := told.SUTFound(); len(lines) != 1 || !strings.Contains(lines[0], want) {
		t.Errorf("SUTFound: %q", lines)
	}
	if find(blind.Own, pid) != nil {
		t.Errorf("not told of it, the busy server is among the own processes: %+v", blind.Own)
	}
}

// A server named by its loopback Prometheus endpoint (drive --sut-metrics) is counted through
// its scrape, and its process — found by the scraped port — is not also listed among the
// busiest other processes (it was, at 0 % other, before). The own entry names its pid.
// Mutant (scripts/mutants.d/machine-scraped-listed-other): the scraped server's process read
// from /proc like any other — it was among the busiest others.
func TestScrapedServerIsNotAmongOthers(t *testing.T) {
	pid, addr := busyServer(t)
	src, err := sut.NewScrape("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	ls, err := sut.FindListeners("", src.Origin())
	if err != nil || len(ls) != 1 || ls[0].PID != pid {
		t.Fatalf("the scraped server (pid %d) not found on %s: %+v, %v", pid, addr, ls, err)
	}
	m := window(t, Config{SUT: []sut.Source{src}})[0]
	t.Logf("machine: %s", m.Line())
	if n := len(slices.DeleteFunc(slices.Clone(m.Own), func(p report.MachineProcess) bool { return p.PID != pid })); n > 1 {
		t.Errorf("the scraped server is counted twice (its scrape and /proc): %+v", m.Own)
	}
	if listed(m.Busiest, pid, ls[0].Name) {
		t.Errorf("the scraped server is among the busiest others: %+v", m.Busiest)
	}
	own := find(m.Own, pid)
	if own == nil || own.Name != addr || own.Cores <= 0 {
		t.Errorf("the scraped server is not among the own processes with its pid and CPU: %+v", m.Own)
	}
}

// The services host a found web tier is connected to is the system under test's too, found by
// the machine's own reading (the connections a server opens under load come after the drive
// looked): a busy services host, not told of, lands among the own processes with the address
// it serves and the web tier's pid, not among the busiest others.
// Mutant (scripts/mutants.d/machine-backends-unfollowed): the watch follows no connection — the
// services host was among the busiest others.
func TestBackendOfTheFoundServerIsOwn(t *testing.T) {
	bsl, bslAddr := busyServer(t)
	web, webAddr := reexec.Start(t, childEnv+"=web-tier", childEnv+"_BACKEND="+bslAddr)
	if strings.HasPrefix(webAddr, "ERR") {
		t.Fatalf("the web tier did not start: %s", webAddr)
	}
	ls, err := sut.FindListeners("", "http://"+webAddr+"/")
	if err != nil || len(ls) != 1 || ls[0].PID != web {
		t.Fatalf("the web tier (pid %d) not found on %s: %+v, %v", web, webAddr, ls, err)
	}
	m := window(t, Config{SUT: []sut.Source{ls[0].Source("")}})[0]
	t.Logf("machine: %s", m.Line())
	own := find(m.Own, bsl)
	if own == nil || own.Listen != bslAddr || own.From != web || own.Cores <= 0 {
		t.Errorf("the services host (pid %d) is not among the own processes, serving the web tier's connection: %+v", bsl, m.Own)
	}
	if listed(m.Busiest, bsl, ls[0].Name) {
		t.Errorf("the services host is among the busiest others: %+v", m.Busiest)
	}
}
