package sut

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/metrics"
)

// childEnv makes this test binary, re-executed, a busy or an idle child process.
const childEnv = "TRADEBENCH_SUT_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "busy":
		for x := 0; ; x++ { // one core's worth of work until killed
			_ = x * x
		}
	case "idle":
		time.Sleep(time.Hour)
		os.Exit(0)
	case "find":
		// FindListeners run as this child's user (another than the listener's): what it says
		ls, err := FindListeners("", os.Getenv(childEnv+"_TARGET"))
		fmt.Printf("%d %v\n", len(ls), err)
		os.Exit(0)
	case "v6only":
		// a neighbour posing as the system under test: it names itself with an escape sequence
		// and binds [::]:PORT with IPV6_V6ONLY, beside a server on 127.0.0.1:PORT — a
		// connection to 127.0.0.1 never reaches it
		if err := os.WriteFile("/proc/self/comm", []byte(os.Getenv(childEnv+"_NAME")), 0); err != nil {
			fmt.Println("ERR", err)
			os.Exit(1)
		}
		lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
			var serr error
			err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_IPV6, syscall.IPV6_V6ONLY, 1) })
			return errors.Join(err, serr)
		}}
		ln, err := lc.Listen(context.Background(), "tcp6", "[::]:"+os.Getenv(childEnv+"_PORT"))
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(1)
		}
		defer ln.Close()
		fmt.Println(ln.Addr())
		time.Sleep(time.Hour)
		os.Exit(0)
	case "listen4", "listen6":
		// a server on a loopback port, which it prints, until killed
		network, addr := "tcp4", "127.0.0.1:0"
		if os.Getenv(childEnv) == "listen6" {
			network, addr = "tcp6", "[::1]:0"
		}
		ln, err := net.Listen(network, addr)
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(1)
		}
		if backend := os.Getenv(childEnv + "_BACKEND"); backend != "" {
			// a web tier: it holds a connection to its services host, as a server's client pool does
			c, err := net.Dial("tcp", backend)
			if err != nil {
				fmt.Println("ERR", err)
				os.Exit(1)
			}
			defer c.Close()
		}
		lns := []net.Listener{ln}
		if os.Getenv(childEnv+"_SECOND") != "" { // a second port: a broker in the server's process
			ln2, err := net.Listen(network, addr)
			if err != nil {
				fmt.Println("ERR", err)
				os.Exit(1)
			}
			lns = append(lns, ln2)
		}
		for _, ln := range lns {
			go func() { // accept (and hold) its clients' connections
				var held []net.Conn
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					held = append(held, c)
				}
			}()
		}
		if len(lns) > 1 {
			fmt.Println(ln.Addr(), lns[1].Addr())
		} else {
			fmt.Println(ln.Addr())
		}
		time.Sleep(time.Hour)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func child(t *testing.T, kind string) int {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"="+kind)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
}

// TestProcBusyAndIdle samples two real child processes from /proc for three seconds: the one
// spinning on a core uses most of one, the sleeping one next to none.
func TestProcBusyAndIdle(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc on this system")
	}
	busy, idle := child(t, "busy"), child(t, "idle")
	// A shared build machine may run a dozen jobs on two cores, where a spinning child gets a
	// fraction of one whatever its priority. Over half a core is asked only when the machine
	// has a core to spare; always, the busy child must use ten times the idle one's CPU.
	absolute := spareCore()
	m := Start(context.Background(), time.Now(), &Proc{ProcName: "busy", Pid: busy}, &Proc{ProcName: "idle", Pid: idle})
	time.Sleep(3*Interval + Interval/2)
	s, err := m.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Processes) != 2 {
		t.Fatalf("%d processes, want 2", len(s.Processes))
	}
	b, i := s.Processes[0], s.Processes[1]
	if b.Name != "busy" || b.PID != busy || b.Source != "proc" || len(b.Series) < 2 {
		t.Fatalf("busy process: %+v", b)
	}
	// the best second, not the mean: a shared 2-core machine may steal a second from the child,
	// but not every one of three
	var best float64
	for _, p := range b.Series {
		best = max(best, p.CPUCores)
		if p.RSSBytes <= 0 {
			t.Errorf("busy process: sample %+v has no resident memory", p)
		}
	}
	if absolute && (best < 0.5 || b.CPUSeconds < 0.5) {
		t.Errorf("busy process: at best %.2f cores, %.2f CPU seconds in all; want over 0.5 of each (series %+v)", best, b.CPUSeconds, b.Series)
	}
	if !absolute {
		t.Logf("the machine is saturated (load average %s): the busy child got at best %.2f cores", loadavg(), best)
	}
	var sum float64
	for _, p := range b.Series {
		sum += p.CPUCores
	}
	if best < 0.02 || b.CPUSeconds < 10*i.CPUSeconds {
		t.Errorf("busy process: at best %.2f cores, %.2f CPU seconds; the idle one %.2f", best, b.CPUSeconds, i.CPUSeconds)
	}
	if d := sum*Interval.Seconds() - b.CPUSeconds; d > 0.1*b.CPUSeconds+0.05 || d < -0.1*b.CPUSeconds-0.05 {
		t.Errorf("the series' cores add up to %.2f CPU seconds, the total says %.2f", sum*Interval.Seconds(), b.CPUSeconds)
	}
	if b.PeakRSSBytes <= 0 {
		t.Errorf("busy process: peak RSS %d", b.PeakRSSBytes)
	}
	for _, p := range i.Series {
		if p.CPUCores > 0.05 {
			t.Errorf("idle process used %.2f cores at t=%.1f", p.CPUCores, p.T)
		}
	}
	if i.CPUSeconds > 0.1 {
		t.Errorf("idle process used %.2f CPU seconds", i.CPUSeconds)
	}
}

// loadavg is /proc/loadavg's one-minute figure.
func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

// spareCore reports whether the one-minute load average leaves a core free.
func spareCore() bool {
	l, err := strconv.ParseFloat(loadavg(), 64)
	return err == nil && l < float64(runtime.NumCPU())-1
}

// TestProcGone: a process that cannot be read is named in Stop's error and left out.
func TestProcGone(t *testing.T) {
	m := Start(context.Background(), time.Now(), &Proc{ProcName: "ghost", Pid: 1 << 30}, Self("me"))
	s, err := m.Stop()
	if err == nil || !strings.Contains(err.Error(), "ghost") {
		t.Errorf("Stop: %v, want an error naming ghost", err)
	}
	if len(s.Processes) != 1 || s.Processes[0].Name != "me" || s.Processes[0].PID != os.Getpid() {
		t.Errorf("processes %+v, want only this one", s.Processes)
	}
}

// TestScrape reads two real metrics endpoints (the one every tradebench server serves: two
// tiers) once a second: each fills its own series, named after its host:port, its source the URL.
func TestScrape(t *testing.T) {
	var srcs []Source
	var eps []*metrics.Endpoint
	for range 2 {
		ep, err := metrics.Listen(context.Background(), "127.0.0.1:0", metrics.NewRegistry(), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ep.Close()
		src, err := NewScrape(ep.URL())
		if err != nil {
			t.Fatal(err)
		}
		srcs, eps = append(srcs, src), append(eps, ep)
	}
	m := Start(context.Background(), time.Now(), srcs...)
	time.Sleep(2*Interval + Interval/2)
	s, err := m.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Processes) != 2 {
		t.Fatalf("%d processes, want 2", len(s.Processes))
	}
	for i, p := range s.Processes {
		ep := eps[i]
		if p.Name != ep.Addr() || p.Source != ep.URL() || p.PID != 0 {
			t.Errorf("scraped process named %q from %q (pid %d), want %q from %q", p.Name, p.Source, p.PID, ep.Addr(), ep.URL())
		}
		if len(p.Series) < 1 || p.PeakRSSBytes <= 0 || p.Series[0].RSSBytes <= 0 || p.Series[0].T <= 0 {
			t.Errorf("scraped series %+v, peak %d", p.Series, p.PeakRSSBytes)
		}
	}
}

func TestScrapeRefusals(t *testing.T) {
	for _, u := range []string{"", "localhost:9464", "ftp://x/metrics", "http://"} {
		if _, err := NewScrape(u); err == nil {
			t.Errorf("NewScrape(%q) accepted", u)
		}
	}
	// an endpoint that is not a Prometheus one: the error says what is missing
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("up 1\n")) }))
	defer srv.Close()
	src, _ := NewScrape(srv.URL)
	if _, err := src.Read(context.Background()); err == nil || !strings.Contains(err.Error(), "process_cpu_seconds_total") {
		t.Errorf("scraping a server without process metrics: %v", err)
	}
}

// TestScrapes: a comma-separated list gives one source an endpoint, spaces trimmed, named by
// host:port; an empty list none; one bad endpoint refuses the list.
// Mutant (scrapes-first-only): Scrapes returning after the first endpoint.
func TestScrapes(t *testing.T) {
	srcs, err := Scrapes("http://web1:9464/metrics, http://bsl:9464/metrics")
	if err != nil || len(srcs) != 2 || srcs[0].Name() != "web1:9464" || srcs[1].Name() != "bsl:9464" {
		t.Fatalf("two endpoints: %v, %v", srcs, err)
	}
	if srcs, err := Scrapes(""); srcs != nil || err != nil {
		t.Errorf("no endpoints: %v, %v", srcs, err)
	}
	if _, err := Scrapes("http://web1:9464/metrics,localhost:9464"); err == nil {
		t.Error("a list with an endpoint that is no URL accepted")
	}
}
