package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// faultRun is a 20 s steady run of 1,000 transactions starting at t0 with the errors given per
// second of the series (second → errors).
func faultRun(t0 time.Time, errs map[int]int64) *Results {
	r := New("http")
	r.StartedAt, r.EndedAt = t0, t0.Add(20*time.Second)
	var n int64
	for s := 1; s <= 20; s++ {
		r.Series = append(r.Series, SeriesPoint{Second: s, Phase: "steady", TPS: 50, Errors: errs[s]})
		n += errs[s]
	}
	r.Total = Transaction{Name: "total", Count: 1000 + n, Pass: 1000, Errors: n}
	return r
}

func rule(v *Validity, name string) RuleResult {
	for _, r := range v.Rules {
		if r.Rule == name {
			return r
		}
	}
	return RuleResult{}
}

// TestFaultWindowsJudgeTheirErrorsApart: three errors in the second a tier was killed are the
// fault's cost (the verdict stays valid, the faults rule names the window and its count); one
// error far from any window fails both rules. Mutants: ruleFaults passing whatever lies outside
// (scripts/mutants.d/testbed-faults-outside), ruleErrors counting the windows' errors
// (testbed-faults-counted), and no slack around the window (testbed-faults-slack) — each seen
// failing this test.
func TestFaultWindowsJudgeTheirErrorsApart(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC)
	kill := Fault{Name: "SIGKILL web1", Start: t0.Add(8200 * time.Millisecond), End: t0.Add(10 * time.Second)}

	// the in-flight requests fail in the second after the kill's (slack), none elsewhere
	r := faultRun(t0, map[int]int64{8: 1, 11: 2})
	if n := r.AddFaults([]Fault{kill, {Name: "before", Start: t0.Add(-time.Hour), End: t0.Add(-time.Minute)}}); n != 1 {
		t.Fatalf("kept %d faults, want 1 (the one outside the run dropped)", n)
	}
	f := r.Faults[0]
	if f.StartS != 8.2 || f.EndS != 10 || f.Errors != 3 {
		t.Fatalf("fault window %+v, want 8.2–10 s with 3 errors", f)
	}
	v := Evaluate(r, DefaultRules())
	fr := rule(v, RuleFaults)
	if v.Verdict == Invalid || fr.Outcome != RulePass || !strings.Contains(fr.Detail, "SIGKILL web1 at 8.2–10.0 s: 3 errors; 0 errors outside") {
		t.Fatalf("verdict %s, faults rule %+v", v.Verdict, fr)
	}
	if er := rule(v, RuleErrors); er.Outcome != RulePass || !strings.Contains(er.Detail, "3 errors in fault windows not counted") {
		t.Fatalf("errors rule %+v", er)
	}
	var out bytes.Buffer
	r.Validity = v
	r.writeVerdict(&out)
	if !strings.Contains(out.String(), "fault: SIGKILL web1 at 8.2–10.0 s of the run: 3 errors") {
		t.Fatalf("the summary does not show the window:\n%s", out.String())
	}

	// one more error at 17 s, far from the window: not the fault's
	r = faultRun(t0, map[int]int64{8: 1, 11: 2, 17: 1})
	r.AddFaults([]Fault{kill})
	v = Evaluate(r, DefaultRules())
	if v.Verdict != Invalid || rule(v, RuleFaults).Outcome != RuleFail || rule(v, RuleErrors).Outcome != RuleFail {
		t.Fatalf("an error outside the window: verdict %s, rules %+v", v.Verdict, v.Rules)
	}
	if !strings.Contains(rule(v, RuleFaults).Detail, "1 errors outside the windows") {
		t.Fatalf("faults rule %+v", rule(v, RuleFaults))
	}
}

// TestReadFaults: the file scripts/testbed crash writes reads back; a malformed line, an end
// before its start and a file naming no fault of the run are refused with the line's number.
func TestReadFaults(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "faults.jsonl")
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := `{"name":"SIGKILL web1","start":"2026-11-27T01:14:02.094626311Z","end":"2026-11-27T01:14:03.960615620Z"}` + "\n\n" +
		`{"name":"SIGKILL orders1","start":"2026-11-27T01:14:10Z","end":"2026-11-27T01:14:12Z"}` + "\n"
	fs, err := ReadFaults(write(good))
	if err != nil || len(fs) != 2 || fs[1].Name != "SIGKILL orders1" || fs[0].Start.Nanosecond() != 94626311 {
		t.Fatalf("read %+v, %v", fs, err)
	}
	for _, c := range []struct{ in, want string }{
		{`{"name":"x","start":"2026-11-27T01:14:02Z"}`, "line 1: start and end are required"},
		{"\n" + `{"name":"x","start":"2026-11-27T01:14:02Z","end":"2026-11-27T01:14:01Z"}`, "line 2: end"},
		{`{"name":"","start":"2026-11-27T01:14:02Z","end":"2026-11-27T01:14:03Z"}`, "line 1: a name"},
		{`{"name":"x","start":"2026-11-27T01:14:02Z","end":"2026-11-27T01:14:03Z","pid":7}`, "line 1: json: unknown field"},
		{`not json`, "line 1:"},
	} {
		if _, err := ReadFaults(write(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
	r := faultRun(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), nil)
	if err := r.AddFaultsFile(write(good)); err == nil || !strings.Contains(err.Error(), "no fault in the faults file overlaps the run (2 faults read)") {
		t.Fatalf("faults from another time: %v", err)
	}
}

// TestOverlappingFaultWindowsCountOnce: two faults whose windows overlap (a broker restarted
// while a tier was down) share seconds; an error in a shared second is one error, so the errors
// in the windows never exceed what failed there and cannot excuse an error outside them. Here 4
// errors fall in the shared second and 2 outside every window: the faults rule must fail with 2
// outside. Mutant: faults-overlap-counted-twice (FaultErrors adds a second once per window).
func TestOverlappingFaultWindowsCountOnce(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC)
	r := faultRun(t0, map[int]int64{6: 4, 18: 2})
	r.AddFaults([]Fault{
		{Name: "SIGKILL web1", Start: t0.Add(5 * time.Second), End: t0.Add(6 * time.Second)},
		{Name: "restart nats", Start: t0.Add(5500 * time.Millisecond), End: t0.Add(6500 * time.Millisecond)},
	})
	if in := r.FaultErrors(); in != 4 {
		t.Errorf("errors in the windows: %d, want 4 (a second in two windows counted once)", in)
	}
	fr := rule(Evaluate(r, DefaultRules()), RuleFaults)
	if fr.Outcome != RuleFail || !strings.Contains(fr.Detail, "2 errors outside the windows") {
		t.Errorf("faults rule %+v: want it failed with 2 errors outside the windows", fr)
	}
}
