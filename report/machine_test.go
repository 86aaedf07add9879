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
