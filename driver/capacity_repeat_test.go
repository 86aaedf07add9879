package driver

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/driver/peak"
	"github.com/tradebench/tradebench/driver/scenario"
)

// A capacity search can be repeated: each run is a whole search, each keeps its capacity with
// its interval, and the summary gives the median capacity and its interval across the searches.
// Mutant: RepeatOf not keeping the search's capacity — no "Capacity (TPS)" line.
func TestRepeatedCapacitySearch(t *testing.T) {
	srv, _ := trivial(t)
	pc := &peak.Config{Start: 1, Max: 1, StepRampUp: new(100 * time.Millisecond), StepDuration: time.Second,
		ConfirmRampUp: 100 * time.Millisecond, ConfirmDuration: time.Second, MaxOtherShare: notDisturbed}
	think := thinkFixed(20 * time.Millisecond)
	res, err := Drive(context.Background(), Config{URL: srv.URL + "/", Phases: Phases{Users: 1, Think: &think}, Peak: pc, Repeat: 2, NoPreflight: true}, HTTP)
	if res == nil {
		t.Fatal(err)
	}
	if len(res.Repeats) != 2 || res.Repeats[0].PeakTPS <= 0 || res.Repeats[1].PeakUsers != 1 {
		t.Fatalf("repeats %+v", res.Repeats)
	}
	var out bytes.Buffer
	res.WriteRepeats(&out)
	if !strings.Contains(out.String(), "Capacity (TPS)") {
		t.Errorf("no capacity over the searches:\n%s", out.String())
	}
	// 1 user × 1 s: a p99 without samples is not shown over the runs
	if !strings.Contains(out.String(), "p99 (ms)                    —  (not enough samples") {
		t.Errorf("a p99 from too few samples shown:\n%s", out.String())
	}
}

// notDisturbed is a search's MaxOtherShare for the tests whose searches are not about the
// machine's other processes: no step is measured again because they took the machine. The
// other tests and packages of go test take it all the time (CI runs four packages at once on
// two cores), so each step was measured three times (TestRepeatedCapacitySearch 13.4 s in a
// quiet CI's race pass); package peak tests the re-measurement.
const notDisturbed = 1

func thinkFixed(d time.Duration) scenario.Think {
	return scenario.Think{Kind: scenario.ThinkFixed, A: d}
}
