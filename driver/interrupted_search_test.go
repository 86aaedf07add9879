package driver

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/report"
)

// An interrupted capacity search's results are its last finished step's (15 s here), but the
// run went on for the whole search (40 s): the verdict says the run was stopped after 40 s, the
// search's own stop reason — the best good step it measured — stays, and the summary headlines
// that step as no capacity, without blaming a bottleneck outside the server.
// Mutant (scripts/mutants.d/driver-interrupted-step-time): the time taken from the last step's
// results — "stopped after 15 s".
func TestInterruptedSearchHeadline(t *testing.T) {
	res := report.New("http")
	res.StartedAt = time.Date(2026, 11, 28, 6, 0, 25, 0, time.UTC)
	res.EndedAt = res.StartedAt.Add(15 * time.Second)
	res.Total = report.Transaction{Name: "total", Count: 8000, Pass: 8000, TPS: 800}
	res.System = &report.System{CPUs: 2}
	res.SUT = &report.SUT{Processes: []report.SUTProcess{{Name: "server", Series: []report.ResourcePoint{{T: 1, CPUCores: 0.3}, {T: 2, CPUCores: 0.3}}}}}
	res.Peak = &report.PeakSearch{PeakTPS: 800, PeakUsers: 800, PeakStep: 4, Seconds: 40,
		StopWhy: "interrupted before the knee was found: the best good step measured was step 4, 800.0 tps at 800 users (not a capacity: the search did not reach its knee)"}
	markInterrupted(res, report.DefaultRules())
	var b bytes.Buffer
	res.WriteSummary(&b)
	out := b.String()
	for _, want := range []string{"the run was stopped after 40 s", "interrupted, not a capacity — best good step: 800.0 tps at 800 users",
		"interrupted before the knee was found: the best good step measured was step 4"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "outside the server") {
		t.Errorf("an interrupted search blames a bottleneck outside the server:\n%s", out)
	}
}
