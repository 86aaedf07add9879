package fleet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/nats-io/nats.go"

	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/driver/load"
	"github.com/tradebench/tradebench/driver/recorder"
	"github.com/tradebench/tradebench/internal/natsx"
	"github.com/tradebench/tradebench/report"
)

// The tests run real agent processes: the test binary re-executed with agentEnv set becomes an
// agent (tradebench agent's code path) on the NATS URL it names.
const agentEnv = "TRADEBENCH_FLEET_TEST_AGENT"

func TestMain(m *testing.M) {
	if url := os.Getenv(agentEnv); url != "" {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
		defer stop()
		log := slog.New(slog.NewTextHandler(os.Stderr, nil)) // shown with go test -v
		// the agent command's own life: the token from $TRADEBENCH_NATS_TOKEN
		if err := Join(ctx, Broker{URL: url}, AgentConfig{Name: os.Getenv(agentEnv + "_NAME"), Log: log}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// startAgents starts n agent processes named a1…an on url, in a directory without any scenario
// file (they must run what the controller sends).
func startAgents(t *testing.T, url string, n int) []*agentProc {
	t.Helper()
	dir := t.TempDir()
	var procs []*agentProc
	for i := 1; i <= n; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), agentEnv+"="+url, agentEnv+"_NAME=a"+strconv.Itoa(i), natsx.EnvToken+"="+testSecret)
		if testing.Verbose() {
			cmd.Stderr = os.Stderr
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		p := &agentProc{Cmd: cmd}
		procs = append(procs, p)
		t.Cleanup(func() { cmd.Process.Kill(); p.wait() })
	}
	return procs
}

// agentProc is an agent's process, waited for once: a test that waits for an agent it stopped
// does so in its own goroutine, and when the test fails first its clean-up waits for the same
// process (two exec.Cmd.Wait calls at once are a data race; the race pass reported one).
type agentProc struct {
	*exec.Cmd
	once sync.Once
	err  error
}

func (p *agentProc) wait() error {
	p.once.Do(func() { p.err = p.Cmd.Wait() })
	return p.err
}

// target is the system under test: real HTTP on loopback that records, per agent (the scenario's
// {{run}} header), the account ids it was sent.
type target struct {
	*httptest.Server
	requests atomic.Int64
	mu       sync.Mutex
	accounts map[string]map[int]bool // X-Run -> accounts
}

func newTarget(t *testing.T) *target {
	tg := &target{accounts: map[string]map[int]bool{}}
	tg.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tg.requests.Add(1)
		time.Sleep(time.Duration(rand.IntN(2000)) * time.Microsecond)
		if id := r.URL.Query().Get("id"); id != "" {
			n, _ := strconv.Atoi(id)
			tg.mu.Lock()
			run := r.Header.Get("X-Run")
			if tg.accounts[run] == nil {
				tg.accounts[run] = map[int]bool{}
			}
			tg.accounts[run][n] = true
			tg.mu.Unlock()
		}
		fmt.Fprintln(w, "ok")
	}))
	t.Cleanup(tg.Close)
	return tg
}

const twoTxScenario = `name: fleet-test
params:
  accounts: 12
think: 5ms
flow:
  - set: {acct: "{unique 0..accounts}"}
  - request:
      name: account
      url: "/acct?id={{acct}}"
      headers: {X-Run: "{{run}}"}
      check: {status: 200, contains: ok}
  - request:
      name: quote
      url: /quote
      check: {status: 200}
`

func writeScenario(t *testing.T, body string) string {
	p := filepath.Join(t.TempDir(), "fleet.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// testSecret is the fleet secret of the tests' brokers, agents and controllers.
const testSecret = "fleet-test-secret-0123456789abcdef"

// testSeal seals and opens as the fleet's members do.
var testSeal = sealer{key: []byte(testSecret)}

func listen(addr string) (*natsx.Server, error) {
	return natsx.Start(natsx.ServerConfig{Name: "fleet-test", Addr: addr, Token: testSecret, MaxPayload: MaxPayload})
}

func broker(t *testing.T) *natsx.Server {
	b, err := listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Shutdown)
	return b
}

func connect(t *testing.T, url string) *nats.Conn {
	nc, err := natsx.Connect(url, natsx.ConnectConfig{Name: "test", Token: testSecret})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// spyResults captures the agents' final results on the wire, as a third party on the subject.
func spyResults(t *testing.T, nc *nats.Conn, run string) func() []*report.Results {
	var mu sync.Mutex
	seen := map[string]*report.Results{}
	_, err := nc.Subscribe(runSubject(run, "result"), func(m *nats.Msg) {
		var r Result
		if testSeal.open(m.Subject, m.Data, &r) == nil && r.Results != nil {
			mu.Lock()
			seen[r.Agent] = r.Results
			mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil { // subscribed on the server before the run starts
		t.Fatal(err)
	}
	return func() []*report.Results {
		mu.Lock()
		defer mu.Unlock()
		var out []*report.Results
		for _, r := range seen {
			out = append(out, r)
		}
		return out
	}
}

// TestFleetMergesExactly: three agent processes run a scenario file the controller sends; the
// merged counts are the sums of the agents', the merged percentiles those of one histogram fed
// every sample the agents measured, no two agents drew the same account, and forged messages of
// another run or from a stranger are ignored.
func TestFleetMergesExactly(t *testing.T) {
	b := broker(t)
	tg := newTarget(t)
	startAgents(t, b.URL(), 3)
	nc := connect(t, b.URL())
	spy := spyResults(t, connect(t, b.URL()), "fleettest")

	// forged ticks: one of another run, one of this run from an agent that is not in it
	stopForge := make(chan struct{})
	go func() {
		fnc := connect(t, b.URL())
		for {
			select {
			case <-stopForge:
				return
			case <-time.After(200 * time.Millisecond):
			}
			fnc.Publish(runSubject("fleettest", "tick"), encode(Tick{Header: header(), Run: "fleettest", Agent: "stranger", Second: 1, Phase: "steady", Pass: 1e6}))
			fnc.Publish(runSubject("fleettest", "tick"), encode(Tick{Header: header(), Run: "otherrun", Agent: "stranger", Second: 1, Phase: "steady", Pass: 1e6}))
		}
	}()
	defer close(stopForge)

	sc := writeScenario(t, twoTxScenario)
	// the drive's watchers hear the fleet's merged seconds, as a local drive's hears its own
	// (mutant: the controller not calling it leaves seconds empty)
	var seconds []report.SeriesPoint
	res, err := driver.Drive(context.Background(), driver.Config{NoPreflight: true, Rules: unsteadyOK(), Target: tg.URL, Scenario: sc, Phases: driver.Phases{Users: 6, Duration: 3 * time.Second}, RunID: "fleettest", Distributor: NewController(nc, ControllerConfig{Agents: 3, Wait: 30 * time.Second, Secret: testSecret}),
		Watchers: []load.Watcher{load.WatcherFunc(func(s *load.Second) { seconds = append(seconds, s.Point) })}}, driver.HTTP)
	if err != nil {
		t.Fatal(err)
	}
	if len(seconds) == 0 {
		t.Error("OnSecond heard no second of the distributed run")
	}
	for _, p := range seconds {
		// the series may have gained a late tick since; the second and its phase are the same
		if i := slices.IndexFunc(res.Series, func(q report.SeriesPoint) bool { return q.Second == p.Second }); i < 0 || res.Series[i].Phase != p.Phase {
			t.Errorf("OnSecond heard %+v, which the merged series does not hold", p)
		}
	}
	if len(res.Agents) != 3 {
		t.Fatalf("agents: %+v", res.Agents)
	}
	var sumCount, sumErrors int64
	for _, a := range res.Agents {
		if a.State != report.AgentDone || a.Requests == 0 {
			t.Errorf("agent %+v: want done with requests", a)
		}
		sumCount += a.Requests
		sumErrors += a.Errors
	}
	if res.Total.Count == 0 || res.Total.Count != sumCount || res.Total.Errors != sumErrors {
		t.Errorf("merged count %d errors %d, agents' sum %d and %d", res.Total.Count, res.Total.Errors, sumCount, sumErrors)
	}
	if res.Settings.Users != 6 || res.Settings.ScenarioSource != "fleet.yaml" {
		t.Errorf("settings: %+v", res.Settings)
	}

	// one histogram fed every sample each agent measured: each bucket's value, count times
	parts := spy()
	if len(parts) != 3 {
		t.Fatalf("spied %d agents' results", len(parts))
	}
	all := recorder.NewHistogram()
	perTx := map[string]int64{}
	for _, p := range parts {
		for _, tx := range p.Transactions {
			perTx[tx.Name] += tx.Count
			h, err := hdr.Decode([]byte(tx.Histogram))
			if err != nil {
				t.Fatal(err)
			}
			for _, bar := range h.Distribution() {
				if bar.Count > 0 {
					if err := all.RecordValues(bar.From, bar.Count); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	for _, tx := range res.Transactions {
		if tx.Count != perTx[tx.Name] {
			t.Errorf("%s: merged %d, agents' sum %d", tx.Name, tx.Count, perTx[tx.Name])
		}
	}
	want := recorder.Summarize("total", all, res.Total.Pass, res.Total.Errors, res.Total.Stop, res.SteadySeconds)
	for _, q := range []struct {
		name      string
		got, want float64
	}{{"p50", res.Total.P50Ms, want.P50Ms}, {"p90", res.Total.P90Ms, want.P90Ms}, {"p99", res.Total.P99Ms, want.P99Ms},
		{"p99.9", res.Total.P999Ms, want.P999Ms}, {"max", res.Total.MaxMs, want.MaxMs}, {"min", res.Total.MinMs, want.MinMs}} {
		if q.got != q.want {
			t.Errorf("merged %s %v, one histogram of every sample %v", q.name, q.got, q.want)
		}
	}
	if all.TotalCount() != res.Total.Pass {
		t.Errorf("samples %d, merged passes %d", all.TotalCount(), res.Total.Pass)
	}

	// the agents' accounts: each within its own slice of 0..12, none shared
	tg.mu.Lock()
	defer tg.mu.Unlock()
	if len(tg.accounts) != 3 {
		t.Fatalf("accounts seen from %d agents: %v", len(tg.accounts), tg.accounts)
	}
	for run, accts := range tg.accounts {
		k, err := strconv.Atoi(strings.TrimPrefix(run, "fleettest-"))
		if err != nil {
			t.Fatalf("run header %q", run)
		}
		for a := range accts {
			if a < 4*k || a >= 4*k+4 {
				t.Errorf("agent %d drew account %d, outside its slice %d..%d", k, a, 4*k, 4*k+3)
			}
		}
	}
	for _, p := range res.Series {
		if p.TPS >= 1e6 {
			t.Errorf("a forged tick was merged: %+v", p)
		}
	}
}

// TestFleetAgentKilled: an agent killed with SIGKILL mid-run is reported lost for its silence,
// the run goes on with the others and ends on time, and the error says so (exit status 5).
func TestFleetAgentKilled(t *testing.T) {
	b := broker(t)
	tg := newTarget(t)
	agents := startAgents(t, b.URL(), 3)
	nc := connect(t, b.URL())
	go func() {
		for tg.requests.Load() == 0 {
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(time.Second)
		agents[0].Process.Signal(syscall.SIGKILL)
	}()
	const dur = 8 * time.Second
	began := time.Now()
	res, err := driver.Drive(context.Background(), driver.Config{NoPreflight: true, URL: tg.URL + "/q", Phases: driver.Phases{Users: 3, Duration: dur}, Distributor: NewController(nc, ControllerConfig{Agents: 3, Wait: 30 * time.Second, Secret: testSecret})}, driver.HTTP)
	took := time.Since(began)
	var lost *driver.AgentsLostError
	if !errors.As(err, &lost) || !slices.Equal(lost.Lost, []string{"a1"}) {
		t.Fatalf("want a1 lost, got %v", err)
	}
	if res == nil || len(res.Agents) != 3 {
		t.Fatalf("results: %+v", res)
	}
	for _, a := range res.Agents {
		if want := map[bool]string{true: report.AgentLost, false: report.AgentDone}[a.Name == "a1"]; a.State != want {
			t.Errorf("agent %s: state %s, want %s", a.Name, a.State, want)
		}
	}
	if res.Total.Count == 0 {
		t.Error("the surviving agents' measurements are missing")
	}
	// discovery, the start lead and the run, with a generous margin for a busy machine
	if limit := dur + 20*time.Second; took > limit {
		t.Errorf("the run took %v, more than %v", took, limit)
	}
	if d := res.EndedAt.Sub(res.StartedAt); d > dur+5*time.Second {
		t.Errorf("the agents ran %v for an %v run", d, dur)
	}
	// Lost because it fell silent, seen while the run went on — not merely because no result
	// came by the deadline after the run's end, which the time limit above would catch only on
	// a quiet machine. Mutant: the silence check in follow disabled (`case connected && false
	// && now.Sub(m.lastSeen) > LostAfter`) — a1 is lost only at the deadline, "no final results".
	if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, "agent a1 (") || !strings.Contains(notes, "was lost (silent for") {
		t.Errorf("notes do not say a1 was lost for its silence: %q", res.Notes)
	}
}

// TestFleetNATSRestart: the broker stops and comes back on the same address mid-run; every agent
// reconnects, none is lost, and the results are complete.
func TestFleetNATSRestart(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	b, err := listen(addr)
	if err != nil {
		t.Fatal(err)
	}
	var bmu sync.Mutex
	t.Cleanup(func() { bmu.Lock(); b.Shutdown(); bmu.Unlock() })
	tg := newTarget(t)
	startAgents(t, b.URL(), 3)
	nc := connect(t, b.URL())
	restarted := make(chan error, 1)
	go func() {
		for tg.requests.Load() == 0 {
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(time.Second)
		bmu.Lock()
		defer bmu.Unlock()
		b.Shutdown()
		time.Sleep(time.Second)
		nb, err := listen(addr)
		if err == nil {
			b = nb
		}
		restarted <- err
	}()
	res, err := driver.Drive(context.Background(), driver.Config{NoPreflight: true, Rules: unsteadyOK(), URL: tg.URL + "/q", Phases: driver.Phases{Users: 3, Duration: 6 * time.Second}, Distributor: NewController(nc, ControllerConfig{Agents: 3, Wait: 30 * time.Second, Secret: testSecret})}, driver.HTTP)
	if rerr := <-restarted; rerr != nil {
		t.Fatalf("restarting the broker: %v", rerr)
	}
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, a := range res.Agents {
		if a.State != report.AgentDone {
			t.Errorf("agent %+v lost across the broker's restart", a)
		}
		sum += a.Requests
	}
	if len(res.Agents) != 3 || sum != res.Total.Count || sum == 0 {
		t.Errorf("agents %+v, merged count %d", res.Agents, res.Total.Count)
	}
}

// TestFleetAgentStopped: an agent stopped with SIGTERM mid-run reports what it measured before it
// exits; the run keeps its full measured window (the other agent ran it all) and says which agent
// ended early.
func TestFleetAgentStopped(t *testing.T) {
	b := broker(t)
	tg := newTarget(t)
	agents := startAgents(t, b.URL(), 2)
	exited := make(chan error, 1)
	go func() {
		for tg.requests.Load() == 0 {
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(time.Second)
		agents[0].Process.Signal(syscall.SIGTERM)
		exited <- agents[0].wait()
	}()
	res, err := driver.Drive(context.Background(), driver.Config{NoPreflight: true, Rules: unsteadyOK(), URL: tg.URL + "/q", Phases: driver.Phases{Users: 2, Duration: 5 * time.Second}, Distributor: NewController(connect(t, b.URL()), ControllerConfig{Agents: 2, Wait: 30 * time.Second, Secret: testSecret})}, driver.HTTP)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-exited; err != nil {
		t.Errorf("the stopped agent exited with %v, want 0", err)
	}
	if len(res.Agents) != 2 || res.Agents[0].State != report.AgentDone || res.Agents[0].Requests == 0 || res.Agents[0].Requests >= res.Agents[1].Requests {
		t.Errorf("agents %+v: a1 should be done with fewer requests than a2", res.Agents)
	}
	if res.SteadySeconds != 5 || res.Total.Count != res.Agents[0].Requests+res.Agents[1].Requests {
		t.Errorf("steady %v s, count %d", res.SteadySeconds, res.Total.Count)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "agent a1: the agent's run ended early") {
		t.Errorf("notes: %q", res.Notes)
	}
}

// unsteadyOK are the run rules without the steady-state bound: these tests stop agents and
// brokers mid-run, or run windows of a few seconds whose per-second series are uneven, on
// purpose; the rule is tested in package report.
func unsteadyOK() *report.Rules {
	r := report.DefaultRules()
	r.MaxTPSVariation = 100
	return &r
}
