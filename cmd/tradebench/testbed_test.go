package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tradebench/tradebench/report"
)

// The clustered test bed (docs/testbed.md), for real: scripts/testbed brings up haproxy in front
// of two web tiers, a services host on PostgreSQL and two order processors over NATS JetStream,
// each on its own loopback address, with this test binary as tradebench. Then:
//   - one user walks the pages through the balancer (round-robin, no stickiness): every page
//     after the login is served logged in, by both tiers in turn, a form's CSRF token made on
//     one tier is accepted by the other, and a logout on one tier ends the session on both;
//     then a JSF login posts the view state one tier made to the other;
//   - every built-in scenario runs through the balancer with no error;
//   - the fault test: a stocktrader mix driven by two agents over NATS, during which web1, then
//     orders1, then the services host with its broker (bsl) are SIGKILLed and restarted
//     (scripts/testbed crash): the run continues, the services host's kill fails requests only
//     inside its window, and the other errors
//     are what the kill cost on web1 (requests in flight cut off, 502; a POST sent to it before
//     its health check saw it down is retried on web2 only with its idempotency key, which the
//     driver sends on every POST; each in haproxy's log) and fall
//     inside the fault's window, the order processor's crash costs no request, every order placed reaches
//     a final state, the audit passes, and the results, verdict and report show both windows;
//   - the database restarted under load (pgRestartTest), and the network between the web tiers
//     and the services host cut (netCutStep);
//   - down leaves no process behind.
//
// Mutants seen failing it: every tier with its own session secret
// (scripts/mutants.d/testbed-session-secret: the walk's second page is the login page), and
// haproxy retrying no refused connection (testbed-no-redispatch: GETs sent to the dead tier
// before its health check fail with 503, which only an unkeyed POST may). The replay subtest
// sends one keyed buy twice through the balancer and finds one order.

// testbedUsers is the fault test's virtual users: each has at most one request in flight, so
// the requests a killed tier can lose are at most this many.
const testbedUsers = 20

func TestTestbed(t *testing.T) {
	t.Parallel() // it mostly waits (runs of fixed length, a browser, servers starting): alongside the other long ones (docs/guide.md, "The CI budget")
	if _, err := exec.LookPath("haproxy"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("haproxy is not installed: the test bed needs it (.ci/run installs Debian's haproxy)")
		}
		t.Skip("haproxy is not installed (Debian: apt-get install haproxy); the test bed test needs it")
	}
	if testing.Short() {
		t.Skip("the test bed takes about two minutes")
	}
	self, err := filepath.Abs(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("../../scripts/testbed")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(script); err != nil { // stat'ed, so go test's cache keys the result on the script too
		t.Fatal(err)
	}
	dir := t.TempDir()
	bed := bedDir(t)
	// a /24 of loopback of its own, so that parallel runs on one machine do not meet
	net := fmt.Sprintf("127.%d.%d", 100+rand.IntN(150), 1+rand.IntN(250))
	env := append(os.Environ(), "TRADEBENCH="+self, smokeMainEnv+"=1")
	bedCmd := func(ctx context.Context, args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "bash", append([]string{script}, append(args, "--dir", bed)...)...)
		cmd.Env, cmd.Dir = env, dir
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	// the test bed's own PostgreSQL, so that the database restart below cuts no other test's
	out, err := bedCmd(ctx, "up", "--net", net)
	t.Cleanup(func() {
		if out, err := bedCmd(context.Background(), "down"); err != nil {
			t.Errorf("testbed down: %v\n%s", err, out)
		}
	})
	if err != nil {
		t.Fatalf("testbed up: %v\n%s", err, out)
	}
	db := strings.TrimSpace(readFile(t, filepath.Join(bed, "dsn")))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "url=http://"+net+".1:") {
		t.Fatalf("testbed up's last line is %q, want url=http://%s.1:PORT", last, net)
	}
	target := strings.TrimPrefix(last, "url=")

	t.Run("walk", func(t *testing.T) { walkPages(t, target) })
	t.Run("replay", func(t *testing.T) { replayBuy(t, target) })

	for _, sc := range []string{"stocktrader", "buysell", "daytrader-mix"} {
		t.Run(sc, func(t *testing.T) {
			res := filepath.Join(dir, sc+".json")
			r := tb(t, "drive", "--target", target, "--scenario", sc, "--users", "4", "--think", "0.05s", "-d", "4s",
				"--no-report", "--out", res) // as up prints it: the web tiers report the data set's size
			rs := readResults(t, res)
			if rs.Total.Errors != 0 || rs.Total.Pass == 0 {
				t.Fatalf("%s through the balancer: %d passed, %d errors (exit %d)\n%s", sc, rs.Total.Pass, rs.Total.Errors, r.code, r.stderr)
			}
		})
	}

	longest := 0.0 // the longest fault window of the fault test, in seconds: how slow a restart is here now
	t.Run("faults", func(t *testing.T) { longest = faultTest(ctx, t, dir, bed, net, target, db, bedCmd) })
	t.Run("pg", func(t *testing.T) { pgRestartTest(ctx, t, dir, bed, target, db, longest, bedCmd) })
	t.Run("net", func(t *testing.T) { netCutStep(ctx, t, bed, net, bedCmd) })

	// down: nothing left running
	pids := map[string]int{}
	for _, p := range []string{"bsl", "orders1", "orders2", "net", "web1", "web2", "haproxy"} {
		b, err := os.ReadFile(filepath.Join(bed, p+".pid"))
		if err != nil {
			t.Fatalf("%s has no pid file: %v", p, err)
		}
		pids[p], _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if out, err := bedCmd(ctx, "down"); err != nil {
		t.Fatalf("testbed down: %v\n%s", err, out)
	}
	// no file outside the test bed's directory: the tiers' token, NATS and work files are in it
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "tradebench-") {
			t.Errorf("%s was written beside the test bed's directory, not in it", e.Name())
		}
	}
	for p, pid := range pids {
		if pid <= 0 {
			t.Errorf("%s: bad pid %d", p, pid)
		} else if syscall.Kill(pid, 0) == nil {
			t.Errorf("%s (pid %d) still runs after down", p, pid)
		}
	}
}

// walkPages logs one user in through the balancer and walks the /trade/ pages, checking that
// each is served logged in and that both tiers serve them.
// replayBuy sends one buy twice through the balancer with one Idempotency-Key — the request
// haproxy's retry sends again — and finds one order, though round-robin took the two to both web
// tiers; the same buy twice without a key is two orders (so the check can fail).
func replayBuy(t *testing.T, target string) {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	orderRe := regexp.MustCompile(`Order <b>(\d+)</b>`)
	post := func(form url.Values, key string) (order, tier string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, target+"/daytrader/app", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if m := orderRe.FindSubmatch(b); m != nil {
			order = string(m[1])
		}
		return order, resp.Header.Get("X-Tradebench-Tier")
	}
	post(url.Values{"action": {"login"}, "uid": {"uid:8"}, "passwd": {"xxx"}}, "")
	buy := url.Values{"action": {"buy"}, "symbol": {"s:2"}, "quantity": {"1"}}
	key := fmt.Sprintf("testbed-replay-%d", rand.Uint64())
	o1, t1 := post(buy, key)
	o2, t2 := post(buy, key)
	if o1 == "" || o1 != o2 {
		t.Fatalf("one keyed buy sent twice (tiers %s, %s): orders %q and %q, want one", t1, t2, o1, o2)
	}
	if t1 == t2 {
		t.Logf("both sends were served by %s (round-robin shared with other clients)", t1)
	}
	u1, _ := post(buy, "")
	u2, _ := post(buy, "")
	if u1 == "" || u1 == u2 {
		t.Fatalf("one unkeyed buy sent twice: orders %q and %q, want two", u1, u2)
	}
	t.Logf("keyed buy sent twice via %s and %s: order %s once; unkeyed: orders %s and %s", t1, t2, o1, u1, u2)
}

func walkPages(t *testing.T, target string) {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	tiers := map[string]int{}
	var csrf string
	csrfRe := regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	do := func(method, path string, form url.Values) (*http.Response, string) {
		t.Helper()
		var resp *http.Response
		var err error
		if method == http.MethodPost {
			resp, err = c.PostForm(target+path, form)
		} else {
			resp, err = c.Get(target + path)
		}
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if m := csrfRe.FindSubmatch(b); m != nil {
			csrf = string(m[1])
		}
		return resp, string(b)
	}
	loggedIn := func(method, path string, form url.Values) {
		t.Helper()
		resp, body := do(method, path, form)
		if resp.StatusCode != http.StatusOK || resp.Request.URL.Path == "/trade/login" || !strings.Contains(body, "uid:7") {
			t.Fatalf("%s %s: status %d at %s (tier %s), not the logged-in page:\n%.400s", method, path, resp.StatusCode,
				resp.Request.URL.Path, resp.Header.Get("X-Tradebench-Tier"), body)
		}
		tiers[resp.Header.Get("X-Tradebench-Tier")]++
	}
	do(http.MethodGet, "/trade/login", nil)
	loggedIn(http.MethodPost, "/trade/login", url.Values{"uid": {"uid:7"}, "passwd": {"xxx"}})
	for _, p := range []string{"/trade/home", "/trade/account", "/trade/portfolio", "/trade/quotes?symbols=s:1,s:2", "/trade/marketsummary", "/trade/home"} {
		loggedIn(http.MethodGet, p, nil)
	}
	// a CSRF token made by one tier, used on the next (round-robin: the other)
	loggedIn(http.MethodPost, "/trade/buy", url.Values{"symbol": {"s:3"}, "quantity": {"2"}, "csrf": {csrf}})
	loggedIn(http.MethodGet, "/trade/portfolio", nil)
	if tiers["web1"] < 3 || tiers["web2"] < 3 {
		t.Fatalf("the walk's pages were served by %v: want both tiers in turn (round-robin, no stickiness)", tiers)
	}
	// a logout on one tier ends the session on every tier
	do(http.MethodPost, "/trade/logout", url.Values{"csrf": {csrf}})
	for i := 0; i < 2; i++ {
		resp, body := do(http.MethodGet, "/trade/home", nil)
		if resp.StatusCode == http.StatusOK && resp.Request.URL.Path != "/trade/login" || strings.Contains(body, "uid:7") {
			t.Fatalf("after the logout, /trade/home on %s was served logged in (status %d at %s)",
				resp.Header.Get("X-Tradebench-Tier"), resp.StatusCode, resp.Request.URL.Path)
		}
	}
	walkJSF(t, do)
}

// walkJSF logs in over DayTrader's JSF contract: the view state (an HMAC under the shared
// secret, bound to the visitor cookie) that one tier put in the login form is posted to the next
// tier, which must accept it ("Ready to Trade"), and the next page is served logged in.
func walkJSF(t *testing.T, do func(method, path string, form url.Values) (*http.Response, string)) {
	t.Helper()
	vsRe := regexp.MustCompile(`name="javax\.faces\.ViewState"[^>]*value="([^"]+)"`)
	resp, body := do(http.MethodGet, "/daytrader/welcome.faces", nil)
	m := vsRe.FindStringSubmatch(body)
	if resp.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("welcome.faces: status %d, view state %v", resp.StatusCode, m)
	}
	first := resp.Header.Get("X-Tradebench-Tier")
	resp, body = do(http.MethodPost, "/daytrader/welcome.faces", url.Values{"login:uid": {"uid:8"}, "login:password": {"xxx"},
		"login:submit": {"Log in"}, "login_SUBMIT": {"1"}, "javax.faces.ViewState": {m[1]}})
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "Ready to Trade") || resp.Header.Get("X-Tradebench-Tier") == first {
		t.Fatalf("JSF login with %s's view state: status %d on %s:\n%.300s", first, resp.StatusCode, resp.Header.Get("X-Tradebench-Tier"), body)
	}
	if resp, body = do(http.MethodGet, "/daytrader/portfolio.faces", nil); resp.StatusCode != http.StatusOK || !strings.Contains(body, "uid:8") {
		t.Fatalf("portfolio.faces after the JSF login: status %d:\n%.300s", resp.StatusCode, body)
	}
}

// faultTest is the fault test (see TestTestbed). It returns its longest fault window in seconds.
func faultTest(ctx context.Context, t *testing.T, dir, bed, net, target, db string, bedCmd func(context.Context, ...string) (string, error)) (longest float64) {
	// the database as loaded, so the orders placed since the load are this drive's alone (the
	// reconciliation below)
	if out, err := smokeCmd(ctx, dir, "reset", "--db", db).CombinedOutput(); err != nil {
		t.Fatalf("reset: %v\n%s", err, out)
	}
	before := auditSummary(ctx, t, db, false)
	token := filepath.Join(dir, "fleet-token")
	if err := os.WriteFile(token, []byte(fmt.Sprintf("%032x", rand.Uint64())), 0o600); err != nil {
		t.Fatal(err)
	}
	broker := net + ".8:4222"
	res := filepath.Join(dir, "fault.json")
	drive := smokeCmd(ctx, dir, "drive", "--agents", "2", "--nats-listen", broker, "--nats-token-file", token, "--agents-wait", "60s",
		"--target", target, "--scenario", "stocktrader", "--set", "users=5000", "--set", "quotes=1000", "--users", strconv.Itoa(testbedUsers), "--think", "0.1s",
		"--ramp-up", "0s", "--ramp-down", "0s", "-d", "40s", "--faults", filepath.Join(bed, "faults.jsonl"), "--out", res)
	pr, pw := io.Pipe()
	drive.Stdout, drive.Stderr = pw, pw
	if err := drive.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var log strings.Builder
	started := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pr)
		once := sync.Once{}
		for sc.Scan() {
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if strings.Contains(sc.Text(), "the run starts at") {
				once.Do(func() { close(started) })
			}
		}
	}()
	driveDone := make(chan error, 1)
	go func() { err := drive.Wait(); pw.Close(); driveDone <- err }()
	for i := 1; i <= 2; i++ {
		a := smokeCmd(ctx, dir, "agent", "--nats", "nats://"+broker, "--nats-token-file", token, "--name", fmt.Sprintf("a%d", i))
		if err := a.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Process.Signal(syscall.SIGTERM); a.Wait() })
	}
	driveLog := func() string { mu.Lock(); defer mu.Unlock(); return log.String() }
	select {
	case <-started:
	case err := <-driveDone:
		t.Fatalf("drive ended before the run started: %v\n%s", err, driveLog())
	case <-time.After(90 * time.Second):
		t.Fatalf("the agents' run did not start:\n%s", driveLog())
	}
	// the run starts 2 s after that line, no ramps (every order the driver sent is counted, for the
	// reconciliation); the kills at about 8 s, 16 s and 24 s of the 40 measured (a restart under load may take seconds: the second window must end inside)
	time.Sleep(10 * time.Second)
	for _, p := range []string{"web1", "orders1", "bsl"} {
		if out, err := bedCmd(ctx, "crash", p); err != nil {
			t.Fatalf("crash %s: %v\n%s", p, err, out)
		}
		time.Sleep(8 * time.Second)
	}
	var derr error
	select {
	case derr = <-driveDone:
	case <-time.After(2 * time.Minute):
		t.Fatalf("drive did not end:\n%s", driveLog())
	}
	t.Logf("drive (exit %v):\n%s", derr, driveLog())
	rs := readResults(t, res)

	// the run continued on both agents, and the faults are in the results
	if len(rs.Agents) != 2 || rs.Agents[0].State != "done" || rs.Agents[1].State != "done" || rs.Total.Pass == 0 {
		t.Fatalf("agents %+v, %d passed", rs.Agents, rs.Total.Pass)
	}
	if len(rs.Faults) != 3 || rs.Faults[0].Name != "SIGKILL web1" || rs.Faults[1].Name != "SIGKILL orders1" || rs.Faults[2].Name != "SIGKILL bsl" {
		t.Fatalf("faults in the results: %+v", rs.Faults)
	}
	web, orders, bsl := rs.Faults[0], rs.Faults[1], rs.Faults[2]
	if web.StartS < rs.Phases.RampUpSeconds || bsl.EndS > rs.Phases.RampUpSeconds+rs.Phases.SteadySeconds {
		t.Fatalf("the faults fell outside the measured window: %+v (phases %+v)", rs.Faults, rs.Phases)
	}
	// errors: only what the kill cost on web1. Each is in haproxy's log as a request to web1 that
	// the server side ended (termination state S…: in flight and cut off, 502; or a POST sent to
	// web1 before its health check saw it down, 503 — a request not safe to send twice is never
	// retried on web2), or it is a request haproxy closed unanswered and did not log: the user's
	// connection carried an idle connection to web1, dead now, and haproxy closes the user's
	// connection for it to retry, which a POST's user does not (at most one per user). Nothing is
	// replayed, by haproxy or by the driver: a register replayed to web2 would meet its own account
	// (409) unless it carries its key, as the driver's POSTs do.
	hlog := readFile(t, filepath.Join(bed, "haproxy.log"))
	// (a GET refused by web1 is redispatched, never a 503: mutant testbed-no-redispatch)
	cost := int64(len(regexp.MustCompile(`web_once/web1 \S+ 50[23] \S+ \S+ \S+ S\S{3} |web/web1 \S+ 502 \S+ \S+ \S+ S\S{3} `).FindAllString(hlog, -1)))
	// haproxy logs a request it sent again with its retries ("+1" redispatched) and the
	// Idempotency-Key it captured: never a POST without a key (an empty capture)
	if re := regexp.MustCompile(`/\+?[1-9]\d* \d+/\d+ \{\} "POST [^"]*"`).FindString(hlog); re != "" {
		t.Fatalf("haproxy sent a POST without an idempotency key again: %s", re)
	}
	t.Logf("POSTs haproxy sent again with their keys: %d", len(regexp.MustCompile(`/\+?[1-9]\d* \d+/\d+ \{[^}]+\} "POST `).FindAllString(hlog, -1)))
	unanswered := rs.StatusCodes["no response"]
	// the services host's kill (its broker with it) fails what the web tiers asked of it until it
	// is back: errors inside its window only, counted (the faults rule below), nothing lost
	if rs.Total.Errors != web.Errors+bsl.Errors || web.Errors != cost+unanswered || unanswered > testbedUsers || rs.StatusCodes["409"] != 0 || orders.Errors != 0 {
		for _, line := range strings.Split(hlog, "\n") {
			if strings.Contains(line, "/web1 ") { // a request's line: haproxy logs only the abnormal ones (dontlog-normal)
				t.Logf("haproxy: %.300s", line)
			}
		}
		t.Fatalf("errors: %d in all, %d in web1's window (haproxy logged %d ended by web1's side; %d closed unanswered, at most %d; 409: %d), %d in orders1's, %d in bsl's; status codes %v; errors %+v",
			rs.Total.Errors, web.Errors, cost, unanswered, testbedUsers, rs.StatusCodes["409"], orders.Errors, bsl.Errors, rs.StatusCodes, rs.Errors)
	}
	v := rs.Validity
	for _, rule := range []string{report.RuleFaults, report.RuleErrors, report.RuleLost} {
		for _, r := range v.Rules {
			if r.Rule == rule && r.Outcome != report.RulePass {
				t.Errorf("rule %s: %s", rule, r)
			}
		}
	}
	html := readFile(t, strings.TrimSuffix(res, ".json")+".html")
	if !strings.Contains(html, "SIGKILL web1 at ") || !strings.Contains(html, "SIGKILL orders1 at ") {
		t.Errorf("the HTML report does not show the fault windows")
	}
	if !regexp.MustCompile(`fault: SIGKILL web1 at [\d.]+–[\d.]+ s of the run: \d+ errors, (recovered in|not recovered|recovery not measured).*worst p99`).MatchString(driveLog()) {
		t.Errorf("the summary does not show the fault windows and what they cost")
	}
	for _, f := range rs.Faults {
		t.Logf("%s at %.1f–%.1f s: %s", f.Name, f.StartS, f.EndS, f.CostText())
	}

	for _, f := range rs.Faults {
		longest = max(longest, f.EndS-f.StartS)
	}
	t.Logf("services host killed: %d errors in its window %.1f–%.1f s", bsl.Errors, bsl.StartS, bsl.EndS)
	placed, buys := reconcileOrders(ctx, t, dir, db, res, rs, before)
	t.Logf("fault test: %d transactions passed, %d errors (web1's window %.1f–%.1f s: what the kill cost: cut off, refused POSTs, closed unanswered; and bsl's), %d in orders1's window %.1f–%.1f s; "+
		"orders placed %d (buys acknowledged in the measured window %d)",
		rs.Total.Pass, rs.Total.Errors, web.StartS, web.EndS, orders.Errors, orders.StartS, orders.EndS, placed, buys)
	return longest
}

// reconcileOrders waits until every order placed reaches a final state (the durable queue
// redelivers what a killed processor held), checks that the audit passes, and reconciles the
// drive's results (res, rs) with the database since before: every acknowledged buy is in the
// database, the orders beyond them are at most the buys that failed after being sent, and no key
// placed two (audit --results fails otherwise); what it prints is what the summary states.
func reconcileOrders(ctx context.Context, t *testing.T, dir, db, res string, rs *report.Results, before auditJSON) (placed, buys int64) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		after := auditSummary(ctx, t, db, true)
		if after.OpenOrders == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Second)
	}
	final := auditSummary(ctx, t, db, false)
	placed = final.Orders - before.Orders
	for _, tx := range rs.Transactions {
		if tx.Name == "buy" {
			buys = tx.Pass
		}
	}
	if !final.Passed || final.OpenOrders != 0 || placed < buys || buys == 0 {
		t.Fatalf("after the run: audit %+v, %d orders placed, %d buys acknowledged", final, placed, buys)
	}
	cmd := smokeCmd(ctx, dir, "audit", "--db", db, "--results", res)
	out, err := cmd.CombinedOutput()
	line := regexp.MustCompile(`orders: (\d+) placed, (\d+) acknowledged, (\d+) ambiguous \(failed after being sent\), 0 placed twice`).FindStringSubmatch(string(out))
	if err != nil || line == nil || line[1] != strconv.FormatInt(placed, 10) || line[2] != strconv.FormatInt(buys, 10) {
		t.Fatalf("audit --results (%v), want the reconciliation with %d placed and %d acknowledged:\n%s", err, placed, buys, out)
	}
	t.Logf("reconciliation: %s (audit passed, %d checks)", line[0], final.Checks)
	return placed, buys
}

type auditJSON struct {
	Passed     bool  `json:"passed"`
	Checks     int   `json:"checks"`
	OpenOrders int64 `json:"open_orders"`
	Orders     int64 `json:"orders"`
}

// auditSummary runs tradebench audit --json on db (allowOpen: open orders listed, not
// violations) and returns its summary.
func auditSummary(ctx context.Context, t *testing.T, db string, allowOpen bool) auditJSON {
	t.Helper()
	args := []string{"audit", "--db", db, "--json", "--limit", "5"}
	if allowOpen {
		args = append(args, "--allow-open")
	}
	cmd := smokeCmd(ctx, t.TempDir(), args...)
	out, _ := cmd.Output()
	var a auditJSON
	if err := json.Unmarshal(out, &a); err != nil {
		t.Fatalf("audit --json: %v\n%s", err, out)
	}
	return a
}

func readResults(t *testing.T, path string) *report.Results {
	t.Helper()
	var r report.Results
	if err := json.Unmarshal([]byte(readFile(t, path)), &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &r
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTestbedUpSaysWhyItFailed: `up` whose throwaway cluster cannot be made (DIR under a
// directory the database user cannot enter: a test's own 0700 temporary directory, run as root)
// prints initdb's reason, not only "up failed", and leaves nothing running. Before, the reason
// was only in DIR/pg.log.
// Mutant: testbed-initdb-reason-hidden (initdb's failure no longer shows its log).
func TestTestbedUpSaysWhyItFailed(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("runs as root: up makes the cluster as the postgres user, who cannot enter a test's 0700 directory")
	}
	if _, err := exec.LookPath("haproxy"); err != nil {
		t.Skip("haproxy is not installed: up checks for it first")
	}
	if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb"); len(m) == 0 {
		t.Skip("no PostgreSQL installed")
	}
	if exec.Command("id", "-u", "postgres").Run() != nil {
		t.Skip("no postgres user")
	}
	self, err := filepath.Abs(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("../../scripts/testbed")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir() // 0700, root's
	bed := filepath.Join(dir, "bed")
	net := fmt.Sprintf("127.%d.%d", 100+rand.IntN(150), 1+rand.IntN(250))
	cmd := exec.Command("bash", script, "up", "--net", net, "--dir", bed)
	cmd.Env, cmd.Dir = append(os.Environ(), "TRADEBENCH="+self, smokeMainEnv+"=1"), dir
	out, err := cmd.CombinedOutput()
	if err == nil {
		exec.Command("bash", script, "down", "--dir", bed).Run()
		t.Fatalf("up under a directory postgres cannot enter succeeded:\n%s", out)
	}
	if !strings.Contains(string(out), "initdb failed") || !strings.Contains(string(out), "Permission denied") {
		t.Errorf("a failed up does not say why:\n%s", out)
	}
	for _, p := range []string{"bsl", "web1", "haproxy"} {
		if _, err := os.Stat(filepath.Join(bed, p+".pid")); err == nil {
			t.Errorf("%s was started (or left a pid file) though the database never came up", p)
		}
	}
}
