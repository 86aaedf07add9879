package report

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// healthy is a recorded 30 s measured window that breaks no rule: 5,000 passed transactions, a
// flat throughput, a driver at 10 % of its cores.
func healthy() *Results {
	r := New("http")
	r.Settings.Model = ModelClosed
	r.Total = Transaction{Name: "total", Count: 5000, Pass: 5000, TPS: 166.7, P50Ms: 2, P90Ms: 5, P99Ms: 9}
	r.Transactions = []Transaction{r.Total}
	r.Phases = Phases{RampUpSeconds: 5, SteadySeconds: 30}
	r.SteadySeconds = 30
	for i := 1; i <= 36; i++ {
		ph := "ramp-up"
		if i > 5 && i <= 35 {
			ph = "steady"
		} else if i > 35 {
			ph = "ramp-down"
		}
		r.Series = append(r.Series, SeriesPoint{Second: i, Phase: ph, TPS: 160 + float64(i%4)*4})
	}
	r.Driver = &DriverUsage{CPUSeconds: 6, Cores: 2, Utilisation: 0.1}
	r.System = &System{CPUs: 2}
	return r
}

// outcome is the named rule's outcome in v ("" when it was not applied).
func outcome(v *Validity, rule string) string {
	for _, r := range v.Rules {
		if r.Rule == rule {
			return r.Outcome
		}
	}
	return ""
}

func TestHealthyRunIsValid(t *testing.T) {
	v := Evaluate(healthy(), DefaultRules())
	if v.Verdict != Valid || len(v.Reasons) != 0 {
		t.Fatalf("healthy run: %s", v.VerdictLine())
	}
	for _, rule := range []string{RuleErrors, RuleDriverCPU, RuleSamples, RuleSteady, RuleLost} {
		if outcome(v, rule) != RulePass {
			t.Errorf("%s: %q, want pass (%+v)", rule, outcome(v, rule), v.Rules)
		}
	}
	// rules that do not apply are not listed: no audit, no capacity claim, the closed model
	for _, rule := range []string{RuleAudit, RuleSUTSaturated, RuleDriverLate} {
		if outcome(v, rule) != "" {
			t.Errorf("%s applied to a run without it", rule)
		}
	}
	if healthy().Judge(DefaultRules()) != nil {
		t.Error("a valid run returned an error")
	}
}

// Each rule fires on recorded measurements made to break it, with its measured value and bound.
// Mutants tried: ruleErrors comparing the bound with ≥ instead of > (a run at exactly 0.01 %
// became invalid: the "at the bound" case failed); ruleDriverCPU reading Cores instead of
// Utilisation (the 95 % case passed).
func TestEachRuleFires(t *testing.T) {
	cases := []struct {
		name    string
		break_  func(r *Results)
		rule    string
		verdict string
		detail  string
	}{
		{"errors above 0.01%", func(r *Results) { r.Total.Errors, r.Total.Count = 5, 5005 }, RuleErrors, Invalid, "error rate 0.0999%"},
		{"nothing passed", func(r *Results) { r.Total.Errors, r.Total.Count, r.Total.Pass = 300, 300, 0 }, RuleErrors, Invalid, "nothing passed"},
		{"driver CPU 95%", func(r *Results) { r.Driver.Utilisation = 0.95 }, RuleDriverCPU, Invalid, "the load generator may be the bottleneck"},
		{"an agent's driver CPU", func(r *Results) {
			hot, cool := 0.9, 0.2
			r.Agents = []AgentResult{{Name: "a1", State: AgentDone, DriverCPU: &cool}, {Name: "a2", State: AgentDone, DriverCPU: &hot}}
		}, RuleDriverCPU, Invalid, "agent a2's driver used 90%"},
		{"open model late", func(r *Results) { r.Settings.Model, r.Arrivals, r.Late = ModelOpen, 1000, 50 }, RuleDriverLate, Invalid, "50 of 1000 arrivals (5%) started late"},
		{"p99 from 500 samples", func(r *Results) { r.Total.Pass, r.Total.Count = 500, 500 }, RuleSamples, Inconclusive, "not enough samples"},
		{"unsteady", func(r *Results) {
			for i := range r.Series {
				if r.Series[i].Second > 20 {
					r.Series[i].TPS = 60 // throughput fell by more than half halfway through
				}
			}
		}, RuleSteady, Invalid, "not a steady state"},
		{"agent lost", func(r *Results) { r.Agents = []AgentResult{{Name: "a1", State: AgentLost}} }, RuleLost, Invalid, "a1"},
		{"arrivals dropped", func(r *Results) { r.Dropped = 3 }, RuleLost, Invalid, "3 arrivals dropped"},
		{"audit failed", func(r *Results) { r.Audit = &AuditSummary{Passed: false, ViolationCount: 2} }, RuleAudit, Invalid, "2 violations"},
		// mutant: the audit rule added only when there is a summary — an audit asked for that could
		// not run left the verdict valid
		{"audit could not run", func(r *Results) { r.AuditError = "database is locked" }, RuleAudit, Inconclusive, "the audit could not run (database is locked)"},
		{"idle server under a capacity claim", func(r *Results) {
			r.Peak = &PeakSearch{PeakUsers: 40, StopWhy: "reached the maximum of 40 users still rising"}
			r.SUT = &SUT{Processes: []SUTProcess{{Name: "sut", Series: flatCPU(0.1, 40)}}}
		}, RuleSUTSaturated, Invalid, "the bottleneck is outside the server"},
		{"capacity claim without the server's CPU", func(r *Results) { r.Peak = &PeakSearch{StopWhy: "reached the maximum"} }, RuleSUTSaturated, Inconclusive, "nothing shows the server saturated"},
	}
	for _, c := range cases {
		r := healthy()
		c.break_(r)
		v := Evaluate(r, DefaultRules())
		if v.Verdict != c.verdict {
			t.Errorf("%s: verdict %s, want %s (%s)", c.name, v.Verdict, c.verdict, v.VerdictLine())
			continue
		}
		var got *RuleResult
		for i := range v.Reasons {
			if v.Reasons[i].Rule == c.rule {
				got = &v.Reasons[i]
			}
		}
		if got == nil || !strings.Contains(got.Detail, c.detail) {
			t.Errorf("%s: reasons %+v, want %s saying %q", c.name, v.Reasons, c.rule, c.detail)
		}
		err := r.Judge(DefaultRules())
		var inv *InvalidError
		if (c.verdict == Invalid) != errors.As(err, &inv) {
			t.Errorf("%s: error %v", c.name, err)
		}
	}
	// at the bound is within it
	r := healthy()
	r.Total.Errors, r.Total.Count = 1, 10000
	if v := Evaluate(r, DefaultRules()); v.Verdict != Valid {
		t.Errorf("0.01%% errors at a 0.01%% bound: %s", v.VerdictLine())
	}
}

func flatCPU(cores float64, n int) []ResourcePoint {
	var s []ResourcePoint
	for i := 1; i <= n; i++ {
		s = append(s, ResourcePoint{T: float64(i), CPUCores: cores})
	}
	return s
}

// A capacity claim passes with the server's CPU near its cores, or with the knee found (its
// latency climbed) whatever its CPU; a driver sharing its process with the server is not judged.
func TestSaturationAndSharedDriver(t *testing.T) {
	r := healthy()
	r.Peak = &PeakSearch{PeakUsers: 2000, StopWhy: "reached the maximum"}
	r.SUT = &SUT{Processes: []SUTProcess{{Name: "web", Series: flatCPU(1.1, 40)}, {Name: "db", Series: flatCPU(0.6, 40)}}}
	if v := Evaluate(r, DefaultRules()); outcome(v, RuleSUTSaturated) != RulePass || v.Verdict != Valid {
		t.Errorf("1.7 of 2 cores: %s", v.VerdictLine())
	}
	r.SUT.Processes[1].Series = flatCPU(0.1, 40) // 1.2 of 2 cores: 60 %
	if v := Evaluate(r, DefaultRules()); outcome(v, RuleSUTSaturated) != RuleFail {
		t.Errorf("1.2 of 2 cores without a knee: %s", v.VerdictLine())
	}
	r.Peak.Knee, r.Peak.StopWhy = true, "throughput stopped rising"
	if v := Evaluate(r, DefaultRules()); outcome(v, RuleSUTSaturated) != RulePass {
		t.Errorf("knee found: %s", v.VerdictLine())
	}
	r.Driver.Utilisation, r.Driver.SharedWithSUT = 0.99, true
	if v := Evaluate(r, DefaultRules()); outcome(v, RuleDriverCPU) != RuleNotChecked || v.Verdict != Valid {
		t.Errorf("shared driver: %s", v.VerdictLine())
	}
	rules := DefaultRules()
	rules.SUTCores = 8 // the server on a bigger machine than the driver's
	r.Peak.Knee = false
	if v := Evaluate(r, rules); outcome(v, RuleSUTSaturated) != RuleFail {
		t.Errorf("1.2 of 8 cores: %s", v.VerdictLine())
	}
}

func TestRulesValidate(t *testing.T) {
	if err := DefaultRules().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []func(*Rules){
		func(r *Rules) { r.MaxErrorRate = 2 }, func(r *Rules) { r.MaxDriverCPU = -1 }, func(r *Rules) { r.MinSamplesP99 = -1 },
		func(r *Rules) { r.MaxTPSVariation = -0.1 }, func(r *Rules) { r.MinSUTCPU = 1.5 },
	} {
		r := DefaultRules()
		f(&r)
		if r.Validate() == nil {
			t.Errorf("%+v accepted", r)
		}
	}
}

// The summary starts with the verdict and its reasons, and shows a percentile without enough
// samples as "—" with the words "not enough samples", never as a number.
// Mutant: percentileCell returning the number whatever the count: the "—" assertion failed.
func TestSummaryVerdictFirst(t *testing.T) {
	r := healthy()
	r.Total.Pass, r.Total.Count, r.Total.Errors = 500, 502, 2
	r.Transactions = []Transaction{r.Total}
	r.Judge(DefaultRules())
	var b bytes.Buffer
	r.WriteSummary(&b)
	out := b.String()
	if !strings.HasPrefix(strings.TrimSpace(out), "verdict: INVALID") || !strings.Contains(out, "errors: error rate 0.3984%") {
		t.Errorf("summary does not start with the verdict:\n%s", out)
	}
	row := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "total ") {
			row = l
		}
	}
	if f := strings.Fields(row); len(f) < 12 || f[10] != "—" || !strings.Contains(out, "— not enough samples: a p99 needs 1000") {
		t.Errorf("p99 of 500 samples shown:\n%s", out)
	}
	if _, ok := r.PercentileMs(r.Total, 90); !ok {
		t.Error("p90 of 500 samples hidden")
	}
}
