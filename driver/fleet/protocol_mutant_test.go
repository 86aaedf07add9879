package fleet

import (
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/report"
)

// agentState is an agent's state read under its lock: its run ("" = idle) and whether started.
func agentState(a *Agent) (run string, started bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.run, a.started
}

// TestAgentRefusesReplayedAssign: a run is assigned once. After an assignment is aborted (the
// agent idle again), the same sealed Assign replayed — by a rogue that captured it, or a
// controller retrying a run it gave up — is refused, and the agent stays idle.
// Mutant fleet-assign-replay: the seen-runs check removed from assign (the replay accepted).
func TestAgentRefusesReplayedAssign(t *testing.T) {
	b := broker(t)
	a := inProcessAgent(t, b.URL(), "a1")
	share := Share{URL: "http://127.0.0.1:1/", Phases: driver.Phases{Users: 1, Duration: time.Second}, RunID: "r-0", Seed: 1}
	as := Assign{Header: header(), Run: "once", Count: 1, Share: share}
	if rep := ask(t, b.URL(), agentSubject(a.ID(), "assign"), as); !rep.OK {
		t.Fatalf("first assignment: %+v", rep)
	}
	nc := connect(t, b.URL())
	subj := agentSubject(a.ID(), "abort")
	if err := nc.Publish(subj, testSeal.seal(subj, Abort{Header: header(), Run: "once", Reason: "test"})); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for run, _ := agentState(a); run != ""; run, _ = agentState(a) {
		if time.Now().After(deadline) {
			t.Fatalf("the agent still holds run %q after the abort", run)
		}
		time.Sleep(10 * time.Millisecond)
	}
	rep := ask(t, b.URL(), agentSubject(a.ID(), "assign"), as)
	if rep.OK || !strings.Contains(rep.Error, "assigned once") {
		t.Fatalf("replayed assignment of an aborted run: %+v, want refused (a run is assigned once)", rep)
	}
	if run, _ := agentState(a); run != "" {
		t.Fatalf("the agent took the replayed run %q", run)
	}
	// a new run is still welcome
	if rep := ask(t, b.URL(), agentSubject(a.ID(), "assign"), Assign{Header: header(), Run: "next", Count: 1, Share: share}); !rep.OK {
		t.Errorf("a new run's assignment after the refusal: %+v", rep)
	}
}

// TestAgentStartMustNameItsRun: a Start names the run it starts; one naming another run does not
// start the assigned share (a stale or forged Start of an earlier run must not set off this one
// at a time nobody chose).
// Mutant fleet-start-other-run: start checking only that some run is assigned.
func TestAgentStartMustNameItsRun(t *testing.T) {
	b := broker(t)
	a := inProcessAgent(t, b.URL(), "a1")
	share := Share{URL: "http://127.0.0.1:1/", Phases: driver.Phases{Users: 1, Duration: time.Second}, RunID: "r-0", Seed: 1}
	if rep := ask(t, b.URL(), agentSubject(a.ID(), "assign"), Assign{Header: header(), Run: "mine", Count: 1, Share: share}); !rep.OK {
		t.Fatalf("assign: %+v", rep)
	}
	rep := ask(t, b.URL(), agentSubject(a.ID(), "start"), Start{Header: header(), Run: "another", At: time.Now().Add(time.Hour)})
	if rep.OK || !strings.Contains(rep.Error, "no assignment for run another") {
		t.Errorf("start naming another run: %+v, want refused", rep)
	}
	if run, started := agentState(a); run != "mine" || started {
		t.Errorf("after a start for another run: run %q started %v, want run mine, not started", run, started)
	}
}

// helloMsg is h sealed as an agent of the fleet announces itself.
func helloMsg(h Hello) *nats.Msg {
	h.Header = header()
	return &nats.Msg{Subject: SubjectHello, Data: testSeal.seal(SubjectHello, h)}
}

// TestIdleHelloDoesNotRevive: an agent that announces itself idle (it restarted, or dropped the
// run) is not running its share: its Hello does not count as the run's heartbeat, so a silent
// agent is still found lost. A Hello naming the run does count.
// Mutant fleet-idle-hello-heartbeat: onHello refreshing lastSeen for any Hello of a member.
func TestIdleHelloDoesNotRevive(t *testing.T) {
	r := testRun(t, driver.Config{URL: "http://127.0.0.1:1/", Phases: driver.Phases{Users: 2, Duration: time.Second}, RunID: "run-1"}, "a1")
	m := r.agents["a1"]
	old := time.Now().Add(-time.Hour)
	m.lastSeen = old
	r.onHello(helloMsg(Hello{ID: "a1", Name: "a1", Run: ""}))
	if !m.lastSeen.Equal(old) {
		t.Fatalf("an idle Hello refreshed the member's heartbeat (%v → %v): a lost agent would look alive", old, m.lastSeen)
	}
	r.onHello(helloMsg(Hello{ID: "a1", Name: "a1", Run: "another-run"}))
	if !m.lastSeen.Equal(old) {
		t.Fatalf("a Hello for another run refreshed the member's heartbeat")
	}
	r.onHello(helloMsg(Hello{ID: "a1", Name: "a1", Run: "run-1"}))
	if m.lastSeen.Equal(old) {
		t.Fatalf("a Hello naming the run did not refresh the heartbeat (the test cannot tell)")
	}
}

// TestLostAgentsLateResultNotMerged: once an agent is counted lost its share is reported as
// missing; its results arriving late are acknowledged and dropped, not merged into a run whose
// summary already says they are missing.
// Mutant fleet-lost-result-merged: onResult dropping only results of agents already done.
func TestLostAgentsLateResultNotMerged(t *testing.T) {
	r := testRun(t, driver.Config{URL: "http://127.0.0.1:1/", Phases: driver.Phases{Users: 2, Duration: time.Second}, RunID: "run-1"}, "a1", "a2")
	m := r.agents["a1"]
	m.state, m.why = report.AgentLost, "silent for 10s"
	late := report.New("http")
	late.Transactions = []report.Transaction{{Name: "GET /", Count: 100, Pass: 100}}
	subj := runSubject("run-1", "result")
	r.onResult(&nats.Msg{Subject: subj, Data: testSeal.seal(subj, Result{Header: header(), Run: "run-1", Agent: "a1", Results: late})})
	if m.state != report.AgentLost || m.results != nil {
		t.Fatalf("a lost agent's late result: state %q, results %v; want still lost, nothing merged", m.state, m.results != nil)
	}
	// the same result from a member still running is taken (the test can tell)
	r.onResult(&nats.Msg{Subject: subj, Data: testSeal.seal(subj, Result{Header: header(), Run: "run-1", Agent: "a2", Results: late})})
	if a2 := r.agents["a2"]; a2.state != report.AgentDone || a2.results == nil {
		t.Fatalf("a running agent's result: state %q, want done", a2.state)
	}
}
