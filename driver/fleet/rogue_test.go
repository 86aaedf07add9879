package fleet

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/internal/natsx"
	"github.com/tradebench/tradebench/report"
)

// sharedBrokerToken is the token of a broker the fleet shares with others: the rogue has it,
// not the fleet secret.
const sharedBrokerToken = "shared-broker-token-0123456789ab"

// sealedAgent serves an in-process agent with the fleet secret on a broker that takes token.
func sealedAgent(t *testing.T, url, token, name string) *Agent {
	nc, err := natsx.Connect(url, natsx.ConnectConfig{Name: name, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	a := NewAgent(nc, AgentConfig{Name: name, Secret: testSecret, Log: slog.New(slog.DiscardHandler)})
	// subscribed before Serve's goroutine runs: the test's first forged request must find the
	// agent (it once met "no responders" and failed, the race Listen exists to prevent)
	if err := a.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Serve(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return a
}

// TestFleetBrokerRefusesStrangers: the fleet's broker requires its token: a client with the
// address alone, or a wrong token, cannot connect (connected, it could command the agents).
// Mutant checked by hand: natsx.Start without Authorization → "connected without the token".
func TestFleetBrokerRefusesStrangers(t *testing.T) {
	b := broker(t)
	for _, tok := range []string{"", "wrong-token-0123456789abcdef"} {
		if nc, err := natsx.Connect(b.URL(), natsx.ConnectConfig{Name: "rogue", Token: tok}); err == nil {
			nc.Close()
			t.Fatalf("connected with token %q", tok)
		} else if !strings.Contains(strings.ToLower(err.Error()), "authorization") {
			t.Errorf("token %q refused with %v, want an authorization violation", tok, err)
		}
	}
	if _, err := natsx.Start(natsx.ServerConfig{Addr: "127.0.0.1:0"}); err == nil {
		t.Fatal("an embedded broker started without a token")
	}
}

// TestFleetRogueChangesNothing: a client on the fleet's broker (a shared one: it has the
// broker's token) but without the fleet secret tries everything the probe did — announces an
// agent named to sort first, assigns and starts an idle agent against a URL of its choosing,
// aborts the run, forges each agent's result and floods ticks — and nothing changes: the real
// agents are chosen, nothing reaches the rogue's URL, the run completes, the results hold only
// what the agents measured.
// Mutant checked by hand: sealer.open accepting unsealed messages and any MAC → "the run
// failed: agent !rogue did not answer" (the fake agent, sorted first, was chosen).
func TestFleetRogueChangesNothing(t *testing.T) {
	b, err := natsx.Start(natsx.ServerConfig{Name: "shared", Addr: "127.0.0.1:0", Token: sharedBrokerToken, MaxPayload: MaxPayload})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Shutdown)
	tg := newTarget(t)
	var evil atomic.Int64
	evilSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { evil.Add(1) }))
	t.Cleanup(evilSrv.Close)
	agents := []*Agent{sealedAgent(t, b.URL(), sharedBrokerToken, "a1"), sealedAgent(t, b.URL(), sharedBrokerToken, "a2")}
	rogue, err := natsx.Connect(b.URL(), natsx.ConnectConfig{Name: "rogue", Token: sharedBrokerToken})
	if err != nil {
		t.Fatal(err)
	}
	defer rogue.Close()
	wrong := sealer{key: []byte("not-the-fleet-secret-0123456789")}
	const run = "roguetest"
	evilShare := Share{URL: evilSrv.URL + "/", Phases: driver.Phases{Users: 2, Duration: 2 * time.Second}, RunID: "x", Seed: 1}

	// commands to an idle agent, unsealed and sealed with a wrong secret: no answer, no effect
	for i, data := range [][]byte{
		encode(Assign{Header: header(), Run: "evil", Count: 1, Share: evilShare}),
		wrong.seal(agentSubject(agents[0].ID(), "assign"), Assign{Header: header(), Run: "evil", Count: 1, Share: evilShare}),
	} {
		if _, err := rogue.Request(agentSubject(agents[0].ID(), "assign"), data, time.Second); !errors.Is(err, nats.ErrTimeout) {
			t.Errorf("forged assign %d: answered (%v)", i, err)
		}
		rogue.Request(agentSubject(agents[0].ID(), "start"), encode(Start{Header: header(), Run: "evil", At: time.Now()}), time.Second)
	}

	// during the run: a fake agent sorted first, aborts, forged results and a tick flood
	stop := make(chan struct{})
	forged := make(chan int, 1)
	go func() {
		n := 0
		defer func() { forged <- n }()
		fake := Hello{Header: header(), ID: "ROGUE", Name: "!rogue", Host: "x", Cores: 64}
		fakeRes := report.New("http")
		fakeRes.Transactions = append(fakeRes.Transactions, report.Transaction{Name: "GET /fake", Count: 1e6})
		for sec := 0; ; sec++ {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			rogue.Publish(SubjectHello, encode(fake))
			rogue.Publish(SubjectHello, wrong.seal(SubjectHello, fake))
			for _, a := range agents {
				rogue.Publish(agentSubject(a.ID(), "abort"), encode(Abort{Header: header(), Run: run, Reason: "rogue"}))
				rogue.Publish(agentSubject(a.ID(), "abort"), wrong.seal(agentSubject(a.ID(), "abort"), Abort{Header: header(), Run: run, Reason: "rogue"}))
				res := Result{Header: header(), Run: run, Agent: a.ID(), Results: fakeRes}
				rogue.Publish(runSubject(run, "result"), encode(res))
				rogue.Publish(runSubject(run, "result"), wrong.seal(runSubject(run, "result"), res))
				for k := range 200 {
					tk := Tick{Header: header(), Run: run, Agent: a.ID(), Second: sec*200 + k, Phase: "steady", Pass: 1e6, Hits: 1e6}
					rogue.Publish(runSubject(run, "tick"), encode(tk))
					rogue.Publish(runSubject(run, "tick"), wrong.seal(runSubject(run, "tick"), tk))
					n += 2
				}
			}
		}
	}()
	// a rogue that answers every request to an agent or for a run's results first, with junk and
	// with a replay of an earlier sealed reply: the answers are ignored, not taken (mutants: a
	// request taking the first reply — "malformed reply" aborts the run; replies sealed over the
	// request's subject rather than its inbox — the replayed "OK" opens)
	replay := testSeal.seal(replySubject(agentSubject(agents[0].ID(), "assign")), Reply{Header: header(), OK: true})
	answer := func(m *nats.Msg) {
		if m.Reply != "" {
			_ = rogue.Publish(m.Reply, []byte("junk"))
			_ = rogue.Publish(m.Reply, replay)
		}
	}
	for _, subj := range []string{prefix + ".agent.*.*", prefix + ".run.*.result"} {
		sub, err := rogue.Subscribe(subj, answer)
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Unsubscribe()
	}
	if err := rogue.Flush(); err != nil {
		t.Fatal(err)
	}
	cnc, err := natsx.Connect(b.URL(), natsx.ConnectConfig{Name: "controller", Token: sharedBrokerToken})
	if err != nil {
		t.Fatal(err)
	}
	defer cnc.Close()
	res, err := driver.Drive(context.Background(), driver.Config{URL: tg.URL + "/q", Phases: driver.Phases{Users: 2, Duration: 3 * time.Second}, RunID: run,
		Distributor: NewController(cnc, ControllerConfig{Agents: 2, Wait: 30 * time.Second, Secret: testSecret})}, driver.HTTP)
	close(stop)
	n := <-forged
	if err != nil {
		t.Fatalf("the run failed: %v", err)
	}
	if evil.Load() != 0 {
		t.Fatalf("the rogue's URL got %d requests", evil.Load())
	}
	var names []string
	var sum int64
	for _, a := range res.Agents {
		names = append(names, a.Name)
		sum += a.Requests
		if a.State != report.AgentDone {
			t.Errorf("agent %+v not done", a)
		}
	}
	if strings.Join(names, ",") != "a1,a2" {
		t.Fatalf("agents chosen %v, want a1,a2", names)
	}
	for _, tx := range res.Transactions {
		if strings.Contains(tx.Name, "fake") {
			t.Fatalf("a forged result was merged: %+v", tx)
		}
	}
	if sum == 0 || res.Total.Count != sum || sum > tg.requests.Load() {
		t.Fatalf("merged %d requests, agents %d, the target saw %d", res.Total.Count, sum, tg.requests.Load())
	}
	var hits int64
	for _, p := range res.Series {
		hits += p.Hits
	}
	if len(res.Series) > 10 || hits > tg.requests.Load() {
		t.Fatalf("%d seconds in the series, %d hits (the target saw %d): forged ticks were counted", len(res.Series), hits, tg.requests.Load())
	}
	t.Logf("%d forged ticks, forged commands and results ignored; %d requests measured", n, sum)
}

// TestAgentStopsWhenControllerGone: an agent whose controller vanished mid-run (its connection
// cut, no abort sent) stops sending load within LostAfter or so and goes idle, waiting for a
// new sealed assignment, rather than run its share to the end for nobody.
// Mutant checked by hand: watchController never calls stop → "agent still running 15s after
// its controller went".
func TestAgentStopsWhenControllerGone(t *testing.T) {
	b := broker(t)
	tg := newTarget(t)
	a := sealedAgent(t, b.URL(), testSecret, "a1")
	cnc := connect(t, b.URL())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go driver.Drive(ctx, driver.Config{URL: tg.URL + "/q", Phases: driver.Phases{Users: 1, Duration: 40 * time.Second}, Distributor: NewController(cnc, ControllerConfig{Agents: 1, Wait: 30 * time.Second, Secret: testSecret})}, driver.HTTP)
	deadline := time.Now().Add(30 * time.Second)
	for tg.requests.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the run did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cnc.Close() // the controller is gone without a word
	gone := time.Now()
	for {
		a.mu.Lock()
		idle := a.run == ""
		a.mu.Unlock()
		if idle {
			break
		}
		if time.Since(gone) > 15*time.Second {
			t.Fatalf("agent still running %v after its controller went", time.Since(gone).Round(time.Second))
		}
		time.Sleep(50 * time.Millisecond)
	}
	n := tg.requests.Load()
	time.Sleep(time.Second)
	if m := tg.requests.Load(); m != n {
		t.Fatalf("the idle agent sent %d more requests", m-n)
	}
}
