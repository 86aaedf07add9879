package driver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/driver/scenario"
	"github.com/tradebench/tradebench/report"
)

// The default ramp-up grows with the users (50 ms each, at least the command's default, at
// most a minute).
func TestDefaultRampUp(t *testing.T) {
	for _, c := range []struct {
		users int
		def   time.Duration
		want  time.Duration
	}{{1, 0, 50 * time.Millisecond}, {200, 0, 10 * time.Second}, {200, 30 * time.Second, 30 * time.Second}, {100000, 0, time.Minute}} {
		if got := DefaultRampUp(c.users, c.def); got != c.want {
			t.Errorf("DefaultRampUp(%d, %v) = %v, want %v", c.users, c.def, got, c.want)
		}
	}
}

// Users in lock-step — started together, thinking a fixed time — get a warning in the results
// and the summary; randomized think, a ramp-up over a think time, or one user do not.
// Mutant (scripts/mutants.d/lockstep-silent): LockStep never warning — no warning note.
func TestLockStepWarned(t *testing.T) {
	fixed := scenario.Think{Kind: scenario.ThinkFixed, A: 200 * time.Millisecond}
	around := scenario.Think{Kind: scenario.ThinkAround, A: 200 * time.Millisecond}
	if LockStep(Phases{Users: 5, RampUp: time.Second}, fixed) != "" || LockStep(Phases{Users: 5}, around) != "" || LockStep(Phases{Users: 1}, fixed) != "" {
		t.Error("warned without lock-step")
	}
	srv, _ := trivial(t)
	rules := report.DefaultRules()
	rules.MaxOtherCPU = 1
	res, err := Drive(context.Background(), Config{URL: srv.URL + "/", Phases: Phases{Users: 5, Think: &fixed, Duration: time.Second}, NoPreflight: true, Rules: &rules}, HTTP)
	if res == nil {
		t.Fatal(err)
	}
	var b strings.Builder
	res.WriteSummary(&b)
	if !strings.Contains(b.String(), "warning: lock-step: 5 users start within 0s and think exactly 200ms") {
		t.Errorf("no lock-step warning:\n%s", b.String())
	}
}
