package vuser

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/driver/load"
	"github.com/tradebench/tradebench/driver/scenario"
)

// TestMain doubles as a trivial HTTP server in a child process (TB_TRIVIAL_SERVER=1), so the
// memory benchmark measures the driver's process alone.
func TestMain(m *testing.M) {
	if os.Getenv("TB_TRIVIAL_SERVER") == "1" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(1)
		}
		fmt.Println(ln.Addr().String())
		body := []byte("hello world\n")
		http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// startChildServer runs the trivial server in a child process and returns its address.
func startChildServer(tb testing.TB) string {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "TB_TRIVIAL_SERVER=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.HasPrefix(line, "ERR") {
		tb.Fatalf("child server: %q %v", line, err)
	}
	return strings.TrimSpace(line)
}

func rssBytes() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			f := strings.Fields(l)
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// BenchmarkMemoryPerUser measures the driver's memory per virtual user: N users (default
// 10,000; TB_MEM_USERS overrides) each GET a trivial page, think 1 s, and keep their connection
// open throughout — the worst case, since every user then holds a socket. It reports the
// growth of the process's resident set and of the Go runtime's memory over the idle baseline,
// per user. Run it alone:
//
//	go test -run XXX -bench MemoryPerUser -benchtime 1x ./driver/vuser/
func BenchmarkMemoryPerUser(b *testing.B) {
	users := 10000
	if v, err := strconv.Atoi(os.Getenv("TB_MEM_USERS")); err == nil && v > 0 {
		users = v
	}
	addr := startChildServer(b)
	sc, err := scenario.Parse("mem", []byte("name: mem\nthink: 1s\nflow:\n  - request: {name: get, url: /}\n"), scenario.Options{})
	if err != nil {
		b.Fatal(err)
	}
	w, err := New(Config{Target: "http://" + addr, Scenario: sc, KeepConnections: true})
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	baseRSS, baseSys := rssBytes(), int64(ms.Sys)

	rampUp, steady := 10*time.Second, 10*time.Second
	var peakRSS, peakSys, peakHeap, peakStack int64
	done := make(chan struct{})
	go func() { // sample through the steady state
		defer close(done)
		time.Sleep(rampUp + 2*time.Second)
		for end := time.Now().Add(steady - 3*time.Second); time.Now().Before(end); time.Sleep(500 * time.Millisecond) {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peakRSS = max(peakRSS, rssBytes())
			peakSys = max(peakSys, int64(m.Sys))
			peakHeap = max(peakHeap, int64(m.HeapInuse))
			peakStack = max(peakStack, int64(m.StackInuse))
		}
	}()
	b.ResetTimer()
	res, err := load.Run(context.Background(), load.Config{Users: users, RampUp: rampUp, Steady: steady}, w)
	b.StopTimer()
	<-done
	if err != nil {
		b.Fatal(err)
	}
	tx, _ := res.Transaction("get")
	if tx.Errors > 0 || tx.TPS < 0.8*float64(users) {
		b.Errorf("the users were not all running: %+v, errors %+v", tx, res.Errors)
	}
	perUser := func(v, base int64) float64 { return float64(v-base) / float64(users) / 1024 }
	b.ReportMetric(perUser(peakRSS, baseRSS), "RSS-KiB/user")
	b.ReportMetric(perUser(peakSys, baseSys), "GoSys-KiB/user")
	b.ReportMetric(float64(peakHeap)/float64(users)/1024, "heap-KiB/user")
	b.ReportMetric(float64(peakStack)/float64(users)/1024, "stack-KiB/user")
	b.ReportMetric(tx.TPS, "tps")
	b.Logf("%d users: RSS %d MiB (base %d MiB), Go sys %d MiB, heap in use %d MiB, stacks %d MiB, %.0f tps, p99 %.1f ms",
		users, peakRSS>>20, baseRSS>>20, peakSys>>20, peakHeap>>20, peakStack>>20, tx.TPS, tx.P99Ms)
}
