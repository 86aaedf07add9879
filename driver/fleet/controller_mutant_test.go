package fleet

import (
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/nats-io/nats.go"

	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/driver/recorder"
)

// testRun is a controller's run of the named agents, as Distribute sets it up once discovery
// has picked them, for feeding it messages directly.
func testRun(t *testing.T, cfg driver.Config, agents ...string) *run {
	t.Helper()
	cfg.SetDefaults()
	p, err := driver.NewPlan(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := &run{c: &Controller{sealer: testSeal}, id: cfg.RunID, plan: p, agents: map[string]*member{}, series: map[int]*second{}, seconds: 10}
	for i, id := range agents {
		m := &member{Hello: Hello{ID: id, Name: id}, index: i, lastSeen: time.Now(), hist: recorder.NewHistogram(), ticked: map[int]bool{}}
		r.agents[id] = m
		r.order = append(r.order, m)
	}
	return r
}

// encodedHist is a histogram of the given latencies, encoded as an agent's tick carries it.
func encodedHist(t *testing.T, ds ...time.Duration) (*hdr.Histogram, string) {
	t.Helper()
	h := recorder.NewSeriesHistogram()
	for _, d := range ds {
		recorder.Record(h, d)
	}
	enc, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	return h, string(enc)
}

// tickMsg is tk sealed as an agent of the fleet sends it on run's tick subject (whatever run
// tk itself names).
func tickMsg(run string, tk Tick) *nats.Msg {
	tk.Header = header()
	subj := runSubject(run, "tick")
	return &nats.Msg{Subject: subj, Data: testSeal.seal(subj, tk)}
}

// TestTickOfAnotherRunIgnored: a tick naming another run, from the agent id of a real member of
// this run (an agent that served an earlier run, say), leaves the series empty and is counted
// as ignored; the same tick with this run's id is merged (so the test can tell).
// (TestFleetMergesExactly's forged ticks come from a stranger, which the member check alone
// refuses.)
//
// Mutant killed: the run-id comparison removed from run.member (`if m == nil` instead of
// `if run != r.id || m == nil`).
func TestTickOfAnotherRunIgnored(t *testing.T) {
	r := testRun(t, driver.Config{URL: "http://127.0.0.1:1/q", Phases: driver.Phases{Users: 2, Duration: time.Second}, RunID: "thisrun"}, "a1", "a2")
	r.onTick(tickMsg(r.id, Tick{Run: "otherrun", Agent: "a1", Second: 1, Phase: "steady", Pass: 7}))
	if len(r.series) != 0 || r.ignored != 1 {
		t.Fatalf("a tick of another run: series %v, ignored %d; want no series and 1 ignored", r.seriesPoints(), r.ignored)
	}
	r.onTick(tickMsg(r.id, Tick{Run: "thisrun", Agent: "a1", Second: 1, Phase: "steady", Pass: 7}))
	if pts := r.seriesPoints(); len(pts) != 1 || pts[0].TPS != 7 || r.ignored != 1 {
		t.Fatalf("this run's tick: series %+v, ignored %d", pts, r.ignored)
	}
}

// TestSharesSplitRateAndMaxInFlight: rate 90 and max-in-flight 10 over three agents are split,
// not copied: the shares add up to 90 requests a second and 10 in flight.
//
// Mutants killed: each agent given the whole rate (`s.Rate = cfg.Rate`) or the whole
// max-in-flight (`s.MaxInFlight = cfg.MaxInFlight`) in run.share.
func TestSharesSplitRateAndMaxInFlight(t *testing.T) {
	r := testRun(t, driver.Config{URL: "http://127.0.0.1:1/q", Phases: driver.Phases{Rate: 90, Duration: time.Second}, MaxInFlight: 10, RunID: "split"}, "a1", "a2", "a3")
	var rate float64
	var inFlight int
	for i := range r.order {
		s := r.share(i)
		if s.MaxInFlight < 1 {
			t.Errorf("agent %d: max-in-flight %d, want at least 1", i, s.MaxInFlight)
		}
		rate += s.Rate
		inFlight += s.MaxInFlight
	}
	if rate != 90 || inFlight != 10 {
		t.Fatalf("shares add up to rate %v and max-in-flight %d, want 90 and 10", rate, inFlight)
	}
}

// TestSeriesMergesAgentsTicks: two agents' ticks for one second make one point whose TPS is
// their sum and whose p99 is that of the two histograms merged (agent a1's latencies are all
// 1 ms, a2's all 50 ms, so only the merge gives the right p99).
//
// Mutant killed: a tick's histogram not merged into its second's (`s.hist.Merge(h)` dropped
// from onTick): the point has no latencies.
func TestSeriesMergesAgentsTicks(t *testing.T) {
	r := testRun(t, driver.Config{URL: "http://127.0.0.1:1/q", Phases: driver.Phases{Users: 2, Duration: time.Second}, RunID: "merge"}, "a1", "a2")
	var fast, slow []time.Duration
	for range 90 {
		fast = append(fast, time.Millisecond)
	}
	for range 10 {
		slow = append(slow, 50*time.Millisecond)
	}
	h1, e1 := encodedHist(t, fast...)
	h2, e2 := encodedHist(t, slow...)
	r.onTick(tickMsg(r.id, Tick{Run: "merge", Agent: "a1", Second: 3, Phase: "steady", Pass: 90, Users: 1, Hist: e1}))
	r.onTick(tickMsg(r.id, Tick{Run: "merge", Agent: "a2", Second: 3, Phase: "steady", Pass: 10, Users: 1, Hist: e2}))
	both := recorder.NewSeriesHistogram()
	both.Merge(h1)
	both.Merge(h2)
	want := float64(both.ValueAtQuantile(99)) / 1000
	pts := r.seriesPoints()
	if len(pts) != 1 || pts[0].Second != 3 || pts[0].TPS != 100 || pts[0].Users != 2 {
		t.Fatalf("series %+v, want one point at second 3 with TPS 100 and 2 users", pts)
	}
	if pts[0].P99Ms != want || want < 40 {
		t.Fatalf("p99 %v ms, want the merged histogram's %v ms", pts[0].P99Ms, want)
	}
}
