package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pageBenchPages are the logged-in DayTrader pages of issue 15, each measured against the hello
// handler. The quotes page asks for five symbols, as DayTrader's default quotes link does.
var pageBenchPages = []struct{ name, path string }{
	{"quotes", "/daytrader/app?action=quotes&symbols=s:1,s:2,s:3,s:4,s:5"},
	{"home", "/daytrader/app?action=home"},
	{"portfolio", "/daytrader/app?action=portfolio"},
	{"account", "/daytrader/app?action=account"},
}

var wrkRate = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)

// BenchmarkPagesVsHello answers "how far is a StockTrader page from this machine's plain-HTTP
// limit?": in one run it serves a plain net/http "Hello, World!" handler and the monolith
// (SQLite, a loaded data set), logs in over the DayTrader contract, and drives the hello handler
// and each page in turn with `wrk -t1 -c32`, printing each page's requests/s as a fraction of
// the hello handler's. Both servers live in this process and wrk in its own, so the comparison
// is the same server stack with and without the application. The hello handler is measured
// before and after the pages and the mean used, so a machine whose load changes during the run
// shows as the spread of the two.
//
//	go test -run '^$' -bench PagesVsHello -benchtime 1x ./trade/server/   (or scripts/bench-pages)
//
// TB_PAGES_D (seconds per wrk run, default 10), TB_PAGES_ACCOUNTS / TB_PAGES_QUOTES (data set,
// default 50,000 / 10,000) adjust it; TB_PAGES_PROFILE=DIR writes a CPU profile of the server
// for each page (DIR/NAME.pprof; `go tool pprof -top DIR/account.pprof`). Needs wrk on PATH.
func BenchmarkPagesVsHello(b *testing.B) {
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		b.Skip("wrk is not installed (apt-get install wrk)")
	}
	env := func(k string, def int) int {
		if v, err := strconv.Atoi(os.Getenv(k)); err == nil && v > 0 {
			return v
		}
		return def
	}
	secs, accounts, quotes := env("TB_PAGES_D", 10), env("TB_PAGES_ACCOUNTS", 50000), env("TB_PAGES_QUOTES", 10000)
	profDir := os.Getenv("TB_PAGES_PROFILE")

	cfg := DefaultConfig()
	cfg.DB = "sqlite:" + filepath.Join(b.TempDir(), "pages.db")
	cfg.Listen = "127.0.0.1:0"
	cfg.LoadIfEmpty = smallSpec(accounts, quotes)
	cfg.Logger = slog.New(slog.DiscardHandler)
	s, err := Start(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hello := []byte("Hello, World!")
	hs := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write(hello)
	})}
	go hs.Serve(ln)
	defer hs.Close()

	cookie := benchLogin(b, s.URL(), "uid:7")
	run := func(name, u string, hdr ...string) float64 {
		b.Helper()
		args := []string{"-t1", "-c32", "-d" + strconv.Itoa(secs) + "s"}
		for _, h := range hdr {
			args = append(args, "-H", h)
		}
		if profDir != "" {
			f, err := os.Create(filepath.Join(profDir, name+".pprof"))
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			if err := pprof.StartCPUProfile(f); err != nil {
				b.Fatal(err)
			}
			defer pprof.StopCPUProfile()
		}
		out, err := exec.Command(wrk, append(args, u)...).CombinedOutput()
		if err != nil {
			b.Fatalf("wrk %s: %v\n%s", name, err, out)
		}
		if strings.Contains(string(out), "Non-2xx") || strings.Contains(string(out), "Socket errors") {
			b.Fatalf("wrk %s: errors:\n%s", name, out)
		}
		m := wrkRate.FindSubmatch(out)
		if m == nil {
			b.Fatalf("wrk %s output: %s", name, out)
		}
		r, _ := strconv.ParseFloat(string(m[1]), 64)
		return r
	}
	// each page once through a Go client first: it must answer 200 with its marker, so wrk
	// measures the page and not a login form or an error
	for _, p := range pageBenchPages {
		benchCheckPage(b, s.URL()+p.path, cookie)
	}

	b.ResetTimer()
	helloURL := "http://" + ln.Addr().String() + "/"
	h1 := run("hello", helloURL)
	rates := make([]float64, len(pageBenchPages))
	for i, p := range pageBenchPages {
		rates[i] = run(p.name, s.URL()+p.path, "Cookie: "+cookie)
	}
	h2 := run("hello-after", helloURL)
	b.StopTimer()
	h := (h1 + h2) / 2
	fmt.Printf("hello: %.0f req/s (before the pages %.0f, after %.0f)\n", h, h1, h2)
	for i, p := range pageBenchPages {
		fmt.Printf("%-10s %8.0f req/s  %.3f of hello\n", p.name, rates[i], rates[i]/h)
		b.ReportMetric(rates[i]/h, p.name+"/hello")
	}
	b.ReportMetric(h, "hello-req/s")
	if rss := peakRSS(); rss > 0 {
		fmt.Printf("peak RSS of this process (server, SQLite cache and mapped database file included): %.1f MB\n", float64(rss)/(1<<20))
		b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MB")
	}
}

// peakRSS is the process's peak resident set size in bytes (VmHWM; 0 where unknown).
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// benchLogin logs uid in over the DayTrader contract and returns the session cookie as a
// Cookie header's value.
func benchLogin(b *testing.B, base, uid string) string {
	c := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.PostForm(base+"/daytrader/app", url.Values{"action": {"login"}, "uid": {uid}, "passwd": {"xxx"}})
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	for _, ck := range resp.Cookies() {
		if ck.Value != "" {
			return ck.Name + "=" + ck.Value
		}
	}
	b.Fatalf("login as %s: status %d, no session cookie", uid, resp.StatusCode)
	return ""
}

func benchCheckPage(b *testing.B, u, cookie string) {
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set("Cookie", cookie)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Logoff") {
		b.Fatalf("%s: status %d, not a logged-in page:\n%.400s", u, resp.StatusCode, body)
	}
}
