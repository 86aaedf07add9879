package report

import (
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
	want := "\nsystem under test: tradebench (pid 1234), listening on 127.0.0.1:8080 — found by its port, its CPU counted as the measurement's own\n"
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
