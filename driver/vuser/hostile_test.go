package vuser

import (
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tradebench/tradebench/internal/httpc"
	"github.com/tradebench/tradebench/internal/testing/racetest"
	"github.com/tradebench/tradebench/report"
)

func runWith(t *testing.T, target, yaml string, users, iterations int, opt httpc.Options) *report.Results {
	t.Helper()
	return runConfig(t, Config{Target: target, HTTP: opt}, yaml, users, iterations)
}

// seen is what the other host was sent.
type seen struct {
	mu   sync.Mutex
	reqs []string // method, Authorization, Cookie, body
}

func (s *seen) all() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.reqs...)
}

// TestCrossOriginRedirect is finding 3 of issue 35: a target answering the login with a 307 to
// another host:port had the driver send every login there, password and Authorization header
// included, and the run was VALID. By default a cross-origin redirect is not followed (the
// transaction fails, saying why) and the other host gets nothing; with --redirects any it is
// followed as a GET with no body, no cookies and none of the user's headers (issue 50: an
// X-Api-Key went along); with any-with-headers the user's headers but the credentials.
// Mutants: redirect-cross-origin-followed (the policy check gone), redirect-credentials-kept
// (StripCredentials not applied), redirect-any-keeps-headers (the user's headers kept).
func TestCrossOriginRedirect(t *testing.T) {
	var other seen
	thief := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		other.mu.Lock()
		other.reqs = append(other.reqs, fmt.Sprintf("%s auth=%q cookie=%q key=%q body=%q", r.Method, r.Header.Get("Authorization"),
			r.Header.Get("Cookie"), r.Header.Get("X-Api-Key"), b))
		other.mu.Unlock()
		fmt.Fprint(w, "Welcome")
	}))
	defer thief.Close()
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "s3ss", Path: "/", Domain: "127.0.0.1"})
		http.Redirect(w, r, thief.URL+"/steal", http.StatusTemporaryRedirect)
	}))
	defer target.Close()
	const sc = `
name: t
flow:
  - request:
      name: login
      method: POST
      url: /login
      headers: {Authorization: "Bearer T0kenSecret", Cookie: "pre=SetCookieSecret", X-Api-Key: "K3ySecret"}
      form: {uid: "uid:0", passwd: "PassW0rdSecret"}
      check: {contains: Welcome}
`
	res := runWith(t, target.URL, sc, 2, 3, httpc.Options{})
	if got := other.all(); len(got) != 0 {
		t.Fatalf("same-origin policy (the default): the other host got %d requests: %q", len(got), got)
	}
	if x := tx(t, res, "login"); x.Errors != 6 || len(res.Errors) != 1 || res.Errors[0].Kind != "cross-origin redirect" {
		t.Errorf("the refused redirect is not a failure saying why: %+v %+v", x, res.Errors)
	}

	res = runWith(t, target.URL, sc, 1, 2, httpc.Options{Redirects: httpc.RedirectAny})
	got := other.all()
	if len(got) != 2 {
		t.Fatalf("--redirects any: the other host got %q", got)
	}
	for _, g := range got {
		if g != `GET auth="" cookie="" key="" body=""` || strings.Contains(g, "Secret") || strings.Contains(g, "s3ss") {
			t.Errorf("a cross-origin hop carried what it must not: %s", g)
		}
	}
	if x := tx(t, res, "login"); x.Pass != 2 {
		t.Errorf("--redirects any: %+v %+v", x, res.Errors)
	}
	// any-with-headers: the user's headers go along, never the credentials
	runWith(t, target.URL, sc, 1, 1, httpc.Options{Redirects: httpc.RedirectAnyWithHeaders})
	if got := other.all(); len(got) != 3 || got[2] != `GET auth="" cookie="" key="K3ySecret" body=""` {
		t.Errorf("--redirects any-with-headers: the other host got %q", got)
	}

	res = runWith(t, target.URL, sc, 1, 1, httpc.Options{Redirects: httpc.RedirectNone})
	if len(other.all()) != 3 || res.StatusCodes["307"] != 1 {
		t.Errorf("--redirects none: followed, or the 307 not the response: %v", res.StatusCodes)
	}
}

// TestBodyBudgetBoundsTheDriver is finding 2 of issue 35: the cap on a kept body was per user,
// so a target sending huge bodies after the login took the driver to 3.7 GiB with 30 users of
// 1 GiB bodies. Now every user's kept bodies share one budget. Scaled down: 12 users each fetch
// a 32 MiB body they must check (384 MiB if each kept its own) with a 16 MiB budget; the
// driver runs in a child process and its peak RSS (its VmHWM, not timing-dependent) must stay
// under 150 MiB. Mutant: body-budget-off (the budget's check gone).
func TestBodyBudgetBoundsTheDriver(t *testing.T) {
	if os.Getenv("TB_BUDGET_CHILD") != "" {
		budget := httpc.NewBodyBudget(16 << 20)
		res := runWith(t, os.Getenv("TB_BUDGET_CHILD"), `
name: t
flow:
  - request: {name: big, url: /big, check: {contains: "the end"}}
`, 12, 1, httpc.Options{Budget: budget})
		fmt.Printf("peak=%d errors=%v\n", budget.Peak(), res.Errors)
		printPeakRSS(t)
		return
	}
	body := []byte(strings.Repeat("x", 32<<20-7) + "the end")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}))
	defer srv.Close()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestBodyBudgetBoundsTheDriver$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TB_BUDGET_CHILD="+srv.URL)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	rss := peakRSS(t, out)
	t.Logf("driver peak RSS %d MiB; %s", rss>>20, strings.TrimSpace(string(out)))
	// under the race detector (scripts/test's second pass) the child is race-built and its RSS
	// is the detector's: the bound is checked without it, the budget's own refusals always
	if !racetest.Enabled && rss > 150<<20 {
		t.Errorf("the driver's peak RSS was %d MiB with a 16 MiB body budget (bound 150 MiB)", rss>>20)
	}
	if !strings.Contains(string(out), "body budget") {
		t.Errorf("bodies past the budget did not fail as such:\n%s", out)
	}
}

// TestSchemeDowngradeRedirectRefused: an https target redirecting to http on its own host and
// port is another origin (the scheme is part of it), so the default policy does not follow it:
// a downgrade would carry the cookies and Authorization in clear text. Mutant:
// redirect-same-origin-ignores-scheme (SameOrigin compares host and port only).
func TestSchemeDowngradeRedirectRefused(t *testing.T) {
	target := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://"+r.Host+"/plain", http.StatusFound)
	}))
	defer target.Close()
	res := runWith(t, target.URL, `
name: t
flow:
  - request: {name: home, url: /, headers: {Authorization: "Bearer T0kenSecret"}}
`, 1, 2, httpc.Options{TLS: &tls.Config{InsecureSkipVerify: true}})
	if len(res.Errors) != 1 || res.Errors[0].Kind != "cross-origin redirect" {
		t.Errorf("https → http on the same host:port was not refused as another origin: %+v", res.Errors)
	}
}

// TestBodyBudgetIsWhatBodiesCost is item 7 of issue 50: the budget counted one buffer per kept
// body and dropped the rest to the garbage collector, so at the driver's GOGC (400) one user of
// 63 MiB bodies reached 488 MiB and 30 users of 60 MiB bodies 743 MiB under a 128 MiB budget.
// Now a body of known length is read into one buffer of its size, a released big buffer stays
// charged and is reused, and a growing body's old buffer is charged with the new: 6 users
// fetching 20 MiB bodies 4 times each under a 64 MiB budget keep the driver (a child process,
// reporting its own VmHWM) under the budget plus 40 MiB (72 MiB measured). The child runs
// with the collector off, so its RSS is every byte it ever allocated: at GOGC=400 whether the
// mutants' garbage was collected before the peak depended on the machine's speed (they were
// killed at a load of 20 and survived on a quiet machine). Mutants:
// body-budget-drops-buffers (released big buffers dropped, as before), body-length-doubling
// (a body of known length read by doubling copies).
func TestBodyBudgetIsWhatBodiesCost(t *testing.T) {
	if os.Getenv("TB_COST_CHILD") != "" {
		budget := httpc.NewBodyBudget(64 << 20)
		res := runWith(t, os.Getenv("TB_COST_CHILD"), `
name: t
flow:
  - request: {name: big, url: /big, check: {contains: "the end"}}
`, 6, 4, httpc.Options{Budget: budget})
		x := tx(t, res, "big")
		fmt.Printf("passed %d, failed %d (body budget), budget peak %d MiB\n", x.Pass, x.Errors, budget.Peak()>>20)
		if x.Pass == 0 || budget.Peak() > budget.Limit() {
			t.Errorf("passed %d, budget peak %d", x.Pass, budget.Peak())
		}
		printPeakRSS(t)
		return
	}
	body := []byte(strings.Repeat("x", 20<<20-7) + "the end")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}))
	defer srv.Close()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestBodyBudgetIsWhatBodiesCost$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TB_COST_CHILD="+srv.URL, "GOGC=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	rss := peakRSS(t, out)
	t.Logf("driver peak RSS %d MiB; %s", rss>>20, strings.TrimSpace(string(out)))
	if !racetest.Enabled && rss > (64+40)<<20 {
		t.Errorf("the driver's peak RSS was %d MiB with a 64 MiB body budget (bound 104 MiB)", rss>>20)
	}
}

// printPeakRSS reports, from a child process, its own peak RSS for peakRSS to read. Not the
// parent's rusage Maxrss of the child: Go starts a child with vfork, and exec carries the
// parent's memory high-water mark into the child's Maxrss: a child started after tests that
// grew the test binary reports their memory as its own (100 to 128 MiB for a child peaking at
// 75 MiB), and whether a bound holds would depend on the tests run before it.
func printPeakRSS(t *testing.T) {
	st, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^VmHWM:\s+(\d+) kB$`).FindSubmatch(st)
	if m == nil {
		t.Fatalf("no VmHWM in /proc/self/status:\n%s", st)
	}
	fmt.Printf("child peak RSS %s kB\n", m[1])
}

// peakRSS is the peak RSS in bytes printPeakRSS reported in a child's output.
func peakRSS(t *testing.T, out []byte) int64 {
	t.Helper()
	m := regexp.MustCompile(`child peak RSS (\d+) kB`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("the child did not report its peak RSS:\n%s", out)
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return kb << 10
}
