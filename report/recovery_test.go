package report

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// recoveryRun is a 30 s steady run starting at t0: 100 transactions a second at a p99 of 50 ms,
// except the seconds given (second → throughput, second → p99).
func recoveryRun(t0 time.Time, tps map[int]float64, p99 map[int]float64) *Results {
	r := New("http")
	r.StartedAt, r.EndedAt = t0, t0.Add(30*time.Second)
	for s := 1; s <= 30; s++ {
		p := SeriesPoint{Second: s, Phase: "steady", TPS: 100, P99Ms: 50}
		if v, ok := tps[s]; ok {
			p.TPS = v
		}
		if v, ok := p99[s]; ok {
			p.P99Ms = v
		}
		r.Series = append(r.Series, p)
	}
	return r
}

// TestFaultRecoveryFromTheSeries: on a recorded series, two faults. web1 killed at 10.4 s, back
// at 12.0: throughput holds in the second of the kill, drops, comes back for one second (14),
// drops again, and is back within the noise (floor 100 − 3·√100 = 70 tps) for good from second
// 16 (holding 15–16 s): recovery 4.6 s from the window's start. The database restarted at
// 20.0 s, back at 25.5: throughput holds three seconds, then drops inside the window; back from
// the second holding 25–26 s: 5.0 s. The worst p99 and the errors are taken in each window's
// seconds only (a 5 s p99 in second 9, before the slack, is not web1's). Mutants (scripts/mutants.d): recovery-from-window-end (3.0 s, 0 s),
// recovery-before-window-end (the database's 0 s: three good seconds before the drop),
// recovery-one-good-second (web1's 2.6 s), recovery-worst-outside-window and
// faults-errors-after-window (web1 counting the error at 28 s) — each seen failing this test.
func TestFaultRecoveryFromTheSeries(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 7, 0, 0, 0, time.UTC)
	r := recoveryRun(t0,
		map[int]float64{11: 100, 12: 0, 13: 20, 14: 80, 15: 50, 24: 0, 25: 30},
		map[int]float64{9: 5000, 12: 900, 13: 700, 25: 1200})
	for s, n := range map[int]int64{12: 4, 25: 2, 28: 1} { // the last outside both windows
		r.Series[s-1].Errors = n
	}
	r.AddFaults([]Fault{
		{Name: "SIGKILL web1", Start: t0.Add(10400 * time.Millisecond), End: t0.Add(12 * time.Second)},
		{Name: "restart pg (immediate)", Start: t0.Add(20 * time.Second), End: t0.Add(25500 * time.Millisecond)},
	})
	web, pg := r.Faults[0], r.Faults[1]
	if web.FloorTPS != 70 || pg.FloorTPS != 70 {
		t.Fatalf("floors %g, %g: want 70 (median 100 less 3 × √100)", web.FloorTPS, pg.FloorTPS)
	}
	if !web.Recovered || web.RecoveryS != 4.6 {
		t.Errorf("web1: recovered %v in %g s, want 4.6 s (from 10.4 s to 15 s)", web.Recovered, web.RecoveryS)
	}
	if web.Errors != 4 || pg.Errors != 2 {
		t.Errorf("errors: web1 %d, pg %d; want 4 and 2 (the one at 28 s is neither's)", web.Errors, pg.Errors)
	}
	if !pg.Recovered || pg.RecoveryS != 5 {
		t.Errorf("pg: recovered %v in %g s, want 5 s (from 20 s to 25 s)", pg.Recovered, pg.RecoveryS)
	}
	if web.WorstP99Ms != 900 || pg.WorstP99Ms != 1200 {
		t.Errorf("worst p99: web1 %g ms, pg %g ms; want 900 and 1200", web.WorstP99Ms, pg.WorstP99Ms)
	}
	var out bytes.Buffer
	r.Validity = Evaluate(r, DefaultRules())
	r.writeVerdict(&out)
	if !strings.Contains(out.String(), "fault: SIGKILL web1 at 10.4–12.0 s of the run: 4 errors, recovered in 4.6 s (back at 70 tps or more), worst p99 900 ms") {
		t.Errorf("the summary does not show what the fault cost:\n%s", out.String())
	}
}

// TestFaultNotRecovered: throughput that never comes back within the measured window is "not
// recovered", never a recovery time; a fault that never disturbed throughput recovered in 0 s;
// and the noise is the steady state's own spread where it is wider than counting noise (85, 100
// and 115 tps in turn: median 100, median absolute deviation 15, floor 100 − 3 × 1.4826 × 15 = 33.3).
// Mutants: recovery-always-recovered, recovery-counting-noise-only.
func TestFaultNotRecovered(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 7, 0, 0, 0, time.UTC)
	late := map[int]float64{}
	for s := 25; s <= 30; s++ {
		late[s] = 10
	}
	r := recoveryRun(t0, late, nil)
	r.AddFaults([]Fault{{Name: "SIGKILL bsl", Start: t0.Add(24 * time.Second), End: t0.Add(26 * time.Second)},
		{Name: "SIGKILL orders1", Start: t0.Add(5 * time.Second), End: t0.Add(6 * time.Second)}})
	bsl, orders := r.Faults[0], r.Faults[1]
	if bsl.Recovered || !strings.HasPrefix(bsl.RecoveryText(), "not recovered") {
		t.Errorf("bsl: recovered %v in %g s (%s); want not recovered", bsl.Recovered, bsl.RecoveryS, bsl.RecoveryText())
	}
	if !orders.Recovered || orders.RecoveryS != 0 {
		t.Errorf("orders1: recovered %v in %g s; want 0 s (throughput never left the noise)", orders.Recovered, orders.RecoveryS)
	}

	noisy := map[int]float64{}
	for s := 1; s <= 30; s++ {
		noisy[s] = []float64{85, 100, 115}[s%3]
	}
	noisy[16], noisy[17] = 0, 40 // inside the window; 40 is within this noise
	r = recoveryRun(t0, noisy, nil)
	r.AddFaults([]Fault{{Name: "SIGKILL web2", Start: t0.Add(15 * time.Second), End: t0.Add(16 * time.Second)}})
	if f := r.Faults[0]; f.FloorTPS != 33.3 || !f.Recovered || f.RecoveryS != 1 {
		t.Errorf("noisy run: floor %g tps, recovered %v in %g s; want 33.3 tps, 1 s (from 15 s to 16 s)", f.FloorTPS, f.Recovered, f.RecoveryS)
	}

	// too few measured seconds outside the windows: not measured, said so
	r = recoveryRun(t0, nil, nil)
	r.AddFaults([]Fault{{Name: "long", Start: t0.Add(time.Second), End: t0.Add(27 * time.Second)}})
	if f := r.Faults[0]; f.FloorTPS != 0 || f.Recovered || !strings.Contains(f.RecoveryText(), "not measured") {
		t.Errorf("a fault over the whole run: %+v (%s)", f, f.RecoveryText())
	}
}
