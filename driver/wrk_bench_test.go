package driver

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMain doubles as two child processes for BenchmarkQuickVsWrk: a trivial HTTP server
// (TB_CHILD=server; with TB_SPIN=1 also spinning on a core, a busy system under test for
// TestDriveCountsTheServerFoundByPort) and the driver's quick mode (TB_CHILD=drive), so each
// side's CPU time is its own process's.
func TestMain(m *testing.M) {
	switch os.Getenv("TB_CHILD") {
	case "server":
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(1)
		}
		fmt.Println(ln.Addr().String())
		if os.Getenv("TB_SPIN") == "1" { // a busy server: one core's worth of work until killed
			go func() {
				for x := 0; ; x++ {
					_ = x * x
				}
			}()
		}
		body := []byte("hello world\n")
		http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
		os.Exit(0)
	case "drive":
		c, _ := strconv.Atoi(os.Getenv("TB_C"))
		d, _ := time.ParseDuration(os.Getenv("TB_D"))
		stop := profile(os.Getenv("TB_DRV_PROFILE"))
		cfg := Config{URL: os.Getenv("TB_URL"), Phases: Phases{Users: c, Duration: d}}
		if os.Getenv("TB_LIVE") == "1" {
			liveScraped(&cfg) // BenchmarkLiveMetricsCost
		}
		res, err := Drive(context.Background(), cfg, HTTP)
		stop()
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(1)
		}
		// every request made, including those cut off at the end, as wrk counts them
		fmt.Println(res.Total.Pass + res.Total.Errors)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// profile starts a CPU profile of the driver child into dir/driver-cpu.pprof when dir is set;
// the returned func stops it and writes the allocation profile (dir/driver-mem.pprof, every
// allocation since the start, `go tool pprof -sample_index=alloc_objects`). Profiling costs the
// driver some CPU, so take the ratio from runs without it.
func profile(dir string) (stop func()) {
	if dir == "" {
		return func() {}
	}
	runtime.MemProfileRate = 4096
	f, err := os.Create(filepath.Join(dir, "driver-cpu.pprof"))
	if err != nil {
		fmt.Println("ERR", err)
		os.Exit(1)
	}
	pprof.StartCPUProfile(f)
	return func() {
		pprof.StopCPUProfile()
		f.Close()
		m, err := os.Create(filepath.Join(dir, "driver-mem.pprof"))
		if err == nil {
			pprof.Lookup("allocs").WriteTo(m, 0)
			m.Close()
		}
	}
}

func child(tb testing.TB, env ...string) (*exec.Cmd, *bufio.Reader) {
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	return cmd, bufio.NewReader(out)
}

func cpuSeconds(ps *os.ProcessState) float64 { return (ps.UserTime() + ps.SystemTime()).Seconds() }

var wrkRequests = regexp.MustCompile(`(\d+) requests in`)

// BenchmarkQuickVsWrk compares the driver's quick mode with wrk on a trivial keep-alive endpoint,
// in the same run, by requests per CPU-second of each client process (user + system time from
// the kernel's accounting of the child). The server is a third process. Rounds alternate the
// two clients; the median of each and the median of the rounds' ratios are reported. Needs wrk
// on PATH (apt-get install wrk).
//
//	go test -run XXX -bench QuickVsWrk -benchtime 1x ./driver/
//
// TB_WRK_C (connections, default 50), TB_WRK_D (seconds per run, default 5), TB_WRK_ROUNDS
// (default 3) and TB_WRK_THREADS (wrk -t, default 2) adjust it. TB_DRV_PROFILE=dir writes the
// driver's CPU and allocation profiles of the last round there (for profiling, not for the ratio).
func BenchmarkQuickVsWrk(b *testing.B) {
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		b.Skip("wrk is not installed (apt-get install wrk)")
	}
	conns, secs, rounds, threads := envInt("TB_WRK_C", 50), envInt("TB_WRK_D", 5), envInt("TB_WRK_ROUNDS", 3), envInt("TB_WRK_THREADS", 2)
	url := serverChild(b)

	var wrkRates, drvRates, wrkRPS, drvRPS, paired []float64
	b.ResetTimer()
	for r := 0; r < rounds; r++ {
		cmd := exec.Command(wrk, "-t"+strconv.Itoa(threads), "-c"+strconv.Itoa(conns), "-d"+strconv.Itoa(secs)+"s", url)
		text, err := cmd.Output()
		if err != nil {
			b.Fatalf("wrk: %v", err)
		}
		m := wrkRequests.FindSubmatch(text)
		if m == nil {
			b.Fatalf("wrk output: %s", text)
		}
		n, _ := strconv.ParseFloat(string(m[1]), 64)
		wrkRates = append(wrkRates, n/cpuSeconds(cmd.ProcessState))
		wrkRPS = append(wrkRPS, n/float64(secs))

		drv, dout := child(b, "TB_CHILD=drive", "TB_URL="+url, "TB_C="+strconv.Itoa(conns), "TB_D="+strconv.Itoa(secs)+"s")
		line, _ := dout.ReadString('\n')
		if err := drv.Wait(); err != nil || strings.HasPrefix(line, "ERR") {
			b.Fatalf("driver: %q %v", line, err)
		}
		n, _ = strconv.ParseFloat(strings.TrimSpace(line), 64)
		drvRates = append(drvRates, n/cpuSeconds(drv.ProcessState))
		drvRPS = append(drvRPS, n/float64(secs))
		paired = append(paired, drvRates[r]/wrkRates[r])
		b.Logf("round %d: wrk %.0f req/s, %.0f req/CPU-s; driver %.0f req/s, %.0f req/CPU-s; driver/wrk %.2f", r+1, wrkRPS[r], wrkRates[r], drvRPS[r], drvRates[r], paired[r])
	}
	b.StopTimer()
	w, d := median(wrkRates), median(drvRates)
	b.ReportMetric(w, "wrk-req/CPU-s")
	b.ReportMetric(d, "driver-req/CPU-s")
	b.ReportMetric(100*d/w, "%-of-wrk")
	// each round's ratio of two neighbouring runs, then their median: steadier than the ratio of
	// the medians when other work on the machine comes and goes between rounds
	b.ReportMetric(100*median(paired), "%-of-wrk-paired")
	b.ReportMetric(median(wrkRPS), "wrk-req/s")
	b.ReportMetric(median(drvRPS), "driver-req/s")
}

// envInt is a benchmark's setting from the environment: a positive integer, else def.
func envInt(k string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(k)); err == nil && v > 0 {
		return v
	}
	return def
}

// serverChild starts the trivial keep-alive server in a process of its own (stopped at the
// benchmark's end) and returns its URL.
func serverChild(b *testing.B) string {
	srv, out := child(b, "TB_CHILD=server")
	b.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	line, err := out.ReadString('\n')
	if err != nil || strings.HasPrefix(line, "ERR") {
		b.Fatalf("server: %q %v", line, err)
	}
	return "http://" + strings.TrimSpace(line) + "/"
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}
