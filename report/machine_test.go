package report

import (
	"slices"
	"strings"
	"testing"
)

// The other_processes rule on recorded windows: a quiet machine passes; a busy one is
// inconclusive (never invalid), naming the share and the busiest others; in a distributed run
// each agent's own machine is judged; a capacity search is judged on its steps too; without a
// machine section the rule is not checked; 1 turns it off.
// Mutant (scripts/mutants.d/machine-agents-ignored): the agents' machines not judged — the
// distributed run's rule was not checked.
func TestOtherProcessesRule(t *testing.T) {
	quiet := &Machine{Cores: 2, BusyCores: 1.9, OwnCores: 1.8, OtherCores: 0.1, OtherShare: 0.05}
	busy := &Machine{Cores: 2, BusyCores: 2, OwnCores: 0.4, OtherCores: 1.6, OtherShare: 0.8,
		Busiest: []MachineProcess{{Name: "sh ×2", Cores: 1.5}, {Name: "go", PID: 42, Cores: 0.1}}}
	judge := func(r *Results) RuleResult {
		v := Evaluate(r, DefaultRules())
		for _, x := range v.Rules {
			if x.Rule == RuleOther {
				if x.Outcome == RuleInconclusive && v.Verdict != Inconclusive {
					t.Errorf("verdict %s with other_processes inconclusive", v.Verdict)
				}
				return x
			}
		}
		t.Fatal("other_processes not applied")
		return RuleResult{}
	}
	r := healthy()
	r.Machine = quiet
	if x := judge(r); x.Outcome != RulePass || x.Value != 0.05 {
		t.Errorf("quiet: %+v", x)
	}
	r.Machine = busy
	if x := judge(r); x.Outcome != RuleInconclusive || !strings.Contains(x.Detail, "1.60 of 2 cores (80% > 10%)") || !strings.Contains(x.Detail, "busiest: sh ×2 1.50 cores, go (pid 42) 0.10 cores") {
		t.Errorf("busy: %+v", x)
	}
	rules := DefaultRules()
	rules.MaxOtherCPU = 1
	if v := Evaluate(r, rules); v.Verdict != Valid {
		t.Errorf("rule off: %s", v.VerdictLine())
	}
	// agents: the controller's machine is not the measurement's; each agent's is
	r.Machine = quiet
	r.Agents = []AgentResult{{Name: "a1", State: AgentDone, Machine: quiet}, {Name: "a2", State: AgentDone, Machine: busy}}
	if x := judge(r); x.Outcome != RuleInconclusive || !strings.Contains(x.Detail, "agent a2's machine") {
		t.Errorf("agents: %+v", x)
	}
	// a search step on a busy machine
	r = healthy()
	r.Machine = quiet
	r.Peak = &PeakSearch{Knee: true, Steps: []PeakStep{{Step: 1, Users: 100, OtherShare: 0.02}, {Step: 2, Users: 200, OtherShare: 0.4}, {Step: 3, Users: 150, Phase: "confirm"}}}
	if x := judge(r); x.Outcome != RuleInconclusive || !strings.Contains(x.Detail, "search step 2 (200 users)") {
		t.Errorf("steps: %+v", x)
	}
	r = healthy()
	if x := judge(r); x.Outcome != RuleNotChecked {
		t.Errorf("no machine section: %+v", x)
	}
}

// Where the target's server was counted as ours, found by its port, the summary says which
// process; where it could not be found, the other_processes rule says why only when the
// machine was judged busy (then the server may be among the others), not on a quiet one.
// Mutant (scripts/mutants.d/machine-sut-not-found-unsaid): the reason left out of the rule's
// detail — the busy window's detail did not say it.
func TestSUTFoundAndNotFoundSaid(t *testing.T) {
	m := &Machine{Cores: 2, BusyCores: 1.9, OwnCores: 1.8, OtherCores: 0.1, OtherShare: 0.05,
		Own: []MachineProcess{{Name: "tradebench", PID: 10, Cores: 0.3}, {Name: "tradebench", PID: 1234, Cores: 1.5, Listen: "127.0.0.1:8080"}}}
	r := healthy()
	r.Machine = m
	var b strings.Builder
	r.WriteSummary(&b)
	want := "\nsystem under test: tradebench (pid 1234), listening on 127.0.0.1:8080 — found by its port, its CPU (1.50 cores) counted as the measurement's own\n"
	if !strings.Contains(b.String(), want) || strings.Count(b.String(), "system under test:") != 1 {
		t.Errorf("summary lacks %q once:\n%s", want, b.String())
	}
	notFound := "a socket listens on 127.0.0.1:8080, but the process holding it is not readable here"
	r.Machine = &Machine{Cores: 2, BusyCores: 1.9, OwnCores: 0.1, OtherCores: 1.8, OtherShare: 0.9, SUTNotFound: notFound}
	for _, x := range Evaluate(r, DefaultRules()).Rules {
		if x.Rule == RuleOther && (x.Outcome != RuleInconclusive || !strings.Contains(x.Detail, "; the target's server was not counted as the system under test: "+notFound+" (name it with drive --sut-metrics)")) {
			t.Errorf("busy, server not found: %+v", x)
		}
	}
	r.Machine = &Machine{Cores: 2, BusyCores: 1.9, OwnCores: 1.8, OtherCores: 0.1, OtherShare: 0.05, SUTNotFound: notFound}
	for _, x := range Evaluate(r, DefaultRules()).Rules {
		if x.Rule == RuleOther && (x.Outcome != RulePass || strings.Contains(x.Detail, "not counted")) {
			t.Errorf("quiet, server not found: %+v", x)
		}
	}
}

// A drive through a test bed finds a dozen database backends and the order processors: the
// summary says each group in one line, with why it was counted and its CPU — not one line a
// process; the system under test's CPU is said by process beside the server's, and so is the
// capacity's.
// Mutant (scripts/mutants.d/report-found-ungrouped): one line a process — 19 lines.
func TestSUTFoundGroupedByName(t *testing.T) {
	m := &Machine{Cores: 2, BusyCores: 1.9, OwnCores: 1.8, OtherCores: 0.1, OtherShare: 0.05,
		Own: []MachineProcess{{Name: "tradebench", PID: 10, Cores: 1.0}}}
	for i := range 17 {
		m.Own = append(m.Own, MachineProcess{Name: "postgres", PID: 100 + i, Cores: 0.05, Listen: "127.0.0.1:5432", From: 10, Role: RoleBackend})
	}
	m.Own = append(m.Own, MachineProcess{Name: "tradebench", PID: 200, Cores: 0.1, Listen: "127.0.0.1:4222", From: 10, Role: RoleClient},
		MachineProcess{Name: "tradebench", PID: 201, Cores: 0.1, Listen: "127.0.0.1:4222", From: 10, Role: RoleClient})
	lines := m.SUTFound()
	want := []string{
		"system under test: postgres ×17 at 127.0.0.1:5432 — backends of tradebench (pid 10)'s own connections, their CPU (0.85 cores) counted as the measurement's own",
		"system under test: tradebench ×2 at 127.0.0.1:4222 — clients of tradebench (pid 10), their CPU (0.20 cores) counted as the measurement's own",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	r := healthy()
	r.Machine = m
	r.SUT = &SUT{Processes: []SUTProcess{
		{Name: "tradebench", PID: 10, Series: []ResourcePoint{{T: 1, CPUCores: 1.0}, {T: 2, CPUCores: 1.2}}},
		{Name: "postgres ×17", Listen: "127.0.0.1:5432", From: 10, Role: RoleBackend, Series: []ResourcePoint{{T: 1, CPUCores: 0.8}, {T: 2, CPUCores: 0.8}}},
	}}
	r.Phases.RampUpSeconds, r.SteadySeconds = 0, 2
	var b strings.Builder
	r.WriteSummary(&b)
	if want := "\nsystem under test CPU: 1.90 cores (tradebench 1.10, postgres ×17 0.80)\n"; !strings.Contains(b.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, b.String())
	}
}

// A machine measured quiet — no other process took anything (0 %) — passes the machine rule:
// it was measured, unlike a run with no /proc. And in a distributed run, driver_cpu is judged
// on the busiest agent wherever it is listed: a saturated agent listed first fails the run.
// Mutants (scripts/mutants.d): validity-quiet-machine-unmeasured (worst <= 0 taken as not
// measured), validity-agents-last (the last agent judged, not the busiest).
func TestQuietMachineAndBusiestAgent(t *testing.T) {
	r := healthy()
	r.Machine = &Machine{Cores: 2, BusyCores: 0.5, OwnCores: 0.5, OtherCores: 0, OtherShare: 0}
	for _, x := range Evaluate(r, DefaultRules()).Rules {
		if x.Rule == RuleOther && (x.Outcome != RulePass || strings.Contains(x.Detail, "not measured")) {
			t.Errorf("a quiet machine: %+v", x)
		}
	}
	hot, cool := 0.97, 0.2
	r = healthy()
	r.Agents = []AgentResult{{Name: "a1", State: AgentDone, DriverCPU: &hot}, {Name: "a2", State: AgentDone, DriverCPU: &cool}}
	for _, x := range Evaluate(r, DefaultRules()).Rules {
		if x.Rule == RuleDriverCPU && (x.Outcome != RuleFail || !strings.Contains(x.Detail, "agent a1's driver")) {
			t.Errorf("a saturated agent listed first: %+v", x)
		}
	}
}
