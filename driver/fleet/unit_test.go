package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/nats-io/nats.go"

	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/driver/recorder"
	"github.com/tradebench/tradebench/driver/scenario"
	"github.com/tradebench/tradebench/report"
)

// TestMergeEqualsOneHistogram: latencies spread over three agents' results merge to exactly the
// summary of one histogram fed every sample — every percentile, the mean, min and max — and the
// counts add up.
func TestMergeEqualsOneHistogram(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	one := recorder.NewHistogram()
	var parts []*report.Results
	var pass int64
	for a := 0; a < 3; a++ {
		h := recorder.NewHistogram()
		n := 1000 + a*700
		for i := 0; i < n; i++ {
			// agents see different distributions: an average of their p99s would be wrong
			d := time.Duration(r.ExpFloat64()*float64(time.Duration(a+1)*3*time.Millisecond)) + 200*time.Microsecond
			recorder.Record(h, d)
			recorder.Record(one, d)
		}
		p := report.New("http")
		p.Transactions = []report.Transaction{recorder.Summarize("tx", h, int64(n), int64(a), 1, 10)}
		p.Hits, p.Bytes = int64(n), int64(n*100)
		p.StatusCodes = map[string]int64{"200": int64(n)}
		p.Errors = []report.ErrorGroup{{Kind: "check", Transaction: "tx", Count: int64(a), Example: "e"}}
		parts = append(parts, p)
		pass += int64(n)
	}
	res, err := Merge(parts, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := recorder.Summarize("tx", one, pass, 3, 3, 10)
	got := res.Transactions[0]
	if got.Histogram != want.Histogram {
		got.Histogram, want.Histogram = "", ""
		t.Errorf("merged histogram differs from one fed every sample")
	}
	got.Histogram, want.Histogram = "", ""
	if got != want {
		t.Errorf("merged\n %+v\none histogram\n %+v", got, want)
	}
	if res.Total.P99Ms != want.P99Ms || res.Total.Count != pass+3 {
		t.Errorf("total %+v", res.Total)
	}
	if res.Hits != pass || res.StatusCodes["200"] != pass || len(res.Errors) != 1 || res.Errors[0].Count != 3 {
		t.Errorf("sums: hits %d codes %v errors %+v", res.Hits, res.StatusCodes, res.Errors)
	}
	var avg float64
	for _, p := range parts {
		avg += p.Transactions[0].P99Ms / 3
	}
	if avg == got.P99Ms {
		t.Errorf("the test's agents should differ: the average of p99s (%v) equals the merged p99", avg)
	}
}

// TestMergeRefusesAMissingHistogram: results that claim passes without their samples cannot be
// merged exactly, and are refused rather than merged approximately.
func TestMergeRefusesAMissingHistogram(t *testing.T) {
	p := report.New("http")
	p.Transactions = []report.Transaction{{Name: "tx", Count: 5, Pass: 5}}
	if _, err := Merge([]*report.Results{p}, 1); err == nil {
		t.Fatal("merged a transaction without its histogram")
	}
}

func TestSplit(t *testing.T) {
	for _, c := range []struct{ total, n int }{{10, 3}, {3, 3}, {7, 2}, {1000, 40}} {
		sum, lo, hi := 0, c.total, 0
		for i := 0; i < c.n; i++ {
			s := split(c.total, i, c.n)
			sum += s
			lo, hi = min(lo, s), max(hi, s)
		}
		if sum != c.total || hi-lo > 1 {
			t.Errorf("split %d over %d: sum %d, sizes %d..%d", c.total, c.n, sum, lo, hi)
		}
	}
	if agentSeed(7, 0) == agentSeed(7, 1) || agentSeed(7, 0) != agentSeed(7, 0) {
		t.Error("agent seeds must differ by agent and repeat for a seed")
	}
}

// TestLeadGrowsWithASlowBroker: the start lead is at least startLead, and leadPerAssign
// assignment round trips when the assignment was slow — on a loaded machine (CI at a load of
// 45) the agents confirmed a fixed 2 s start after its instant and the run failed with "the
// broker is too slow" (mutant fleet-lead-fixed: the lead fixed at startLead).
func TestLeadGrowsWithASlowBroker(t *testing.T) {
	for _, c := range []struct{ assigned, want time.Duration }{
		{time.Millisecond, startLead},
		{startLead / leadPerAssign, startLead},
		{time.Second, leadPerAssign * time.Second},
		{3 * time.Second, leadPerAssign * 3 * time.Second},
	} {
		if got := leadFor(c.assigned); got != c.want {
			t.Errorf("assigned in %v: lead %v, want %v", c.assigned, got, c.want)
		}
	}
}

// inProcessAgent serves an agent in this process for the protocol's refusals. It listens before
// it serves, so the test's first request cannot beat the agent's subscription.
func inProcessAgent(t *testing.T, url, name string) *Agent {
	a := NewAgent(connect(t, url), AgentConfig{Name: name, Secret: testSecret})
	if err := a.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Serve(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return a
}

func ask(t *testing.T, url, subj string, msg any) Reply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var r Reply
	if err := testSeal.request(ctx, connect(t, url), subj, testSeal.seal(subj, msg), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestAgentRefusesAnotherVersion: a controller of another version is refused, by name of both
// versions; so is a start for a run the agent was never given, and an abort of one is ignored.
func TestAgentRefusesAnotherVersion(t *testing.T) {
	b := broker(t)
	a := inProcessAgent(t, b.URL(), "a1")
	share := Share{URL: "http://127.0.0.1:1/", Phases: driver.Phases{Users: 1, Duration: time.Second}, RunID: "r-0", Seed: 1}
	old := Assign{Header: Header{Proto: Proto, Version: "0.0.1"}, Run: "r", Count: 1, Share: share}
	rep := ask(t, b.URL(), agentSubject(a.ID(), "assign"), old)
	if rep.OK || !strings.Contains(rep.Error, "0.0.1") || !strings.Contains(rep.Error, report.Version) {
		t.Errorf("assign from version 0.0.1: %+v", rep)
	}
	rep = ask(t, b.URL(), agentSubject(a.ID(), "start"), Start{Header: header(), Run: "never-assigned", At: time.Now()})
	if rep.OK || !strings.Contains(rep.Error, "no assignment") {
		t.Errorf("start of an unknown run: %+v", rep)
	}
	nc := connect(t, b.URL())
	nc.Publish(agentSubject(a.ID(), "abort"), testSeal.seal(agentSubject(a.ID(), "abort"), Abort{Header: header(), Run: "never-assigned"}))
	nc.Flush()
	// the agent is still free: a proper assignment of this version is accepted
	ok := Assign{Header: header(), Run: "r", Count: 1, Share: share}
	if rep := ask(t, b.URL(), agentSubject(a.ID(), "assign"), ok); !rep.OK {
		t.Errorf("assign: %+v", rep)
	}
	if rep := ask(t, b.URL(), agentSubject(a.ID(), "assign"), Assign{Header: header(), Run: "other", Count: 1, Share: share}); rep.OK || !strings.Contains(rep.Error, "busy") {
		t.Errorf("a second run's assignment while assigned: %+v", rep)
	}
}

// TestAgentListensBeforeServing: once Listen returns, the agent answers a request even though
// its Serve loop has not started, the order net/http keeps with net.Listen before Serve (with
// Serve subscribing in a goroutine nobody waits for, a request sent at once gets "no
// responders"). Mutant: Listen returning without subscribing (Serve subscribing instead) fails the
// request with no responders.
func TestAgentListensBeforeServing(t *testing.T) {
	b := broker(t)
	a := NewAgent(connect(t, b.URL()), AgentConfig{Name: "early", Secret: testSecret})
	if err := a.Listen(); err != nil {
		t.Fatal(err)
	}
	rep := ask(t, b.URL(), agentSubject(a.ID(), "start"), Start{Header: header(), Run: "none", At: time.Now()})
	if rep.OK || !strings.Contains(rep.Error, "no assignment") {
		t.Fatalf("start before Serve: %+v", rep)
	}
}

// TestTooFewAgents: fewer agents than asked within the wait is a usage error naming how many
// joined.
func TestTooFewAgents(t *testing.T) {
	b := broker(t)
	inProcessAgent(t, b.URL(), "a1")
	_, err := driver.Drive(context.Background(), driver.Config{NoPreflight: true, URL: "http://127.0.0.1:1/", Phases: driver.Phases{Users: 2, Duration: time.Second}, Distributor: NewController(connect(t, b.URL()), ControllerConfig{Agents: 2, Wait: 2 * time.Second, Secret: testSecret})}, driver.HTTP)
	var ue *driver.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "only 1 of 2 agents joined within 2s") {
		t.Fatalf("want a usage error naming 1 of 2, got %v", err)
	}
}

// TestBadShareAbortsBeforeLoad: a drive the controller accepts but one agent cannot run (its
// slice of a unique range is too small for its users) aborts with that agent's message, as a
// usage error, before any request reaches the target.
func TestBadShareAbortsBeforeLoad(t *testing.T) {
	b := broker(t)
	tg := newTarget(t)
	for _, n := range []string{"a1", "a2", "a3"} {
		inProcessAgent(t, b.URL(), n)
	}
	// two draws per user from 10 values: 5 users fit the whole range, but agent a2's slice has 3
	// values and it gets 2 users
	sc := writeScenario(t, "name: two-draws\nflow:\n  - set: {a: \"{unique 0..10}\", b: \"{unique 0..10}\"}\n  - request: {url: \"/x?a={{a}}&b={{b}}\"}\n")
	_, err := driver.Drive(context.Background(), driver.Config{NoPreflight: true, Target: tg.URL, Scenario: sc, Phases: driver.Phases{Users: 5, Duration: time.Second}, Distributor: NewController(connect(t, b.URL()), ControllerConfig{Agents: 3, Wait: 10 * time.Second, Secret: testSecret})}, driver.HTTP)
	var ue *driver.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "agent a2") || !strings.Contains(err.Error(), "slice") {
		t.Fatalf("want agent a2's refusal as a usage error, got %v", err)
	}
	time.Sleep(3 * time.Second) // past the start the run would have had
	if n := tg.requests.Load(); n != 0 {
		t.Errorf("%d requests reached the target", n)
	}
}

// tickOf is the encoded per-second histogram of n latencies, as an agent sends it.
func tickOf(n int) string {
	r := rand.New(rand.NewPCG(3, 4))
	h := recorder.NewSeriesHistogram()
	for i := 0; i < n; i++ {
		recorder.Record(h, time.Duration(r.ExpFloat64()*float64(5*time.Millisecond))+100*time.Microsecond)
	}
	enc, _ := h.Encode(hdrV2)
	return string(enc)
}

// BenchmarkTickMerge is the controller's work per agent per second: decode one second's tick
// (1,000 transactions) and add it to the fleet's second.
func BenchmarkTickMerge(b *testing.B) {
	t := Tick{Header: header(), Run: "r", Agent: "a", Second: 1, Phase: "steady", Pass: 1000, Hits: 1000, Users: 50, Hist: tickOf(1000)}
	subj := runSubject("r", "tick")
	data := testSeal.seal(subj, t)
	m := &member{hist: recorder.NewHistogram(), ticked: map[int]bool{}}
	r := &run{c: &Controller{sealer: testSeal}, id: "r", agents: map[string]*member{"a": m}, series: map[int]*second{}, seconds: 10}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		delete(m.ticked, 1) // as if it were the next second
		r.onTick(&nats.Msg{Subject: subj, Data: data})
	}
	b.ReportMetric(float64(len(data)), "bytes/tick")
}

// BenchmarkFinalMerge is the end of a 40-agent run: 40 agents' results of 8 transactions each.
func BenchmarkFinalMerge(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	var parts []*report.Results
	for a := 0; a < 40; a++ {
		p := report.New("http")
		for tx := 0; tx < 8; tx++ {
			h := recorder.NewHistogram()
			for i := 0; i < 20000; i++ {
				recorder.Record(h, time.Duration(r.ExpFloat64()*float64(5*time.Millisecond))+100*time.Microsecond)
			}
			p.Transactions = append(p.Transactions, recorder.Summarize("tx"+strconv.Itoa(tx), h, 20000, 0, 0, 300))
		}
		parts = append(parts, p)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Merge(parts, 300); err != nil {
			b.Fatal(err)
		}
	}
}

const hdrV2 = hdr.V2CompressedEncodingCookieBase

// TestShareIsTheDrive: an agent's share is the drive's own configuration as it arrives over the
// wire — every setting the drive was given, with only the agent's part of the load, run id,
// seed and slice changed — and the controller's local fields (thresholds, progress) stay
// behind. Mutants: a share built field by field that forgets Timeout (as a parallel Share
// struct could) arrives with the agent's default timeout; dropping json:"-" from Thresholds
// sends them.
func TestShareIsTheDrive(t *testing.T) {
	keep := true
	cfg := driver.Config{Target: "http://127.0.0.1:1", Scenario: "stocktrader", Params: map[string]string{"users": "50"},
		Phases: driver.Phases{Think: &scenario.Think{Kind: scenario.ThinkFixed, A: time.Second}, Users: 7, RampUp: time.Second, Duration: 2 * time.Second, RampDown: 3 * time.Second}, Iterations: 3,
		KeepConnections: &keep,
		Timeout:         9 * time.Second, Insecure: true, RunID: "run", Seed: 11,
		Thresholds: []report.Threshold{report.MinTPS(1)}}
	cfg.SetDefaults()
	p, err := driver.NewPlan(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := &run{plan: p, order: []*member{{}, {}}}
	data, err := json.Marshal(Assign{Header: header(), Run: "run", Index: 1, Count: 2, Share: r.share(1)})
	if err != nil {
		t.Fatal(err)
	}
	var got Assign
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	want := p.Config()
	want.Thresholds, want.Progress = nil, nil
	want.ScenarioData = p.ScenarioData()
	want.Users, want.RunID, want.Seed, want.Slice = 3, "run-1", agentSeed(11, 1), scenario.Slice{Index: 1, Count: 2}
	if !reflect.DeepEqual(got.Share, want) {
		t.Fatalf("share arrived as\n%+v\nwant\n%+v", got.Share, want)
	}
	if strings.Contains(string(data), "min_tps") || strings.Contains(string(data), "Thresholds") {
		t.Fatalf("the controller's thresholds travelled: %s", data)
	}
}
