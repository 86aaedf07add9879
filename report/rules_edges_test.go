package report

import (
	"math"
	"strings"
	"testing"
)

// These tests pin the edges of the run rules that a plausible bug would move without failing
// the broader tests in validity_test.go: each names the mutant it kills (scripts/mutants.d).

// A server allowed fewer cores than the measuring machine has (--rule-sut-cores 2 on an 8-CPU
// box) is judged against its own cores: 1.8 of 2 cores is saturated, whatever the machine's 8.
// Mutant validity-sut-cores-ignored: sutCores prefers the machine's CPU count to the rule's
// setting (1.8 of 8 cores: 22 %, judged "the bottleneck is outside the server").
func TestSUTCoresSettingBeatsMachineCPUs(t *testing.T) {
	r := healthy()
	r.System = &System{CPUs: 8}
	r.Peak = &PeakSearch{PeakUsers: 400, StopWhy: "reached the maximum of 400 users still rising"}
	r.SUT = &SUT{Processes: []SUTProcess{{Name: "sut", Series: flatCPU(1.8, 40)}}}
	rules := DefaultRules()
	rules.SUTCores = 2
	v := Evaluate(r, rules)
	if got := outcome(v, RuleSUTSaturated); got != RulePass {
		t.Fatalf("1.8 of the 2 cores the server may use: %s, want pass (%s)", got, v.VerdictLine())
	}
	for _, rr := range v.Rules {
		if rr.Rule == RuleSUTSaturated && !strings.Contains(rr.Detail, "of 2 cores") {
			t.Errorf("detail %q does not say the 2 cores it judged against", rr.Detail)
		}
	}
	// and without the setting, the machine's 8 cores: 22 %, not saturated
	if got := outcome(Evaluate(r, DefaultRules()), RuleSUTSaturated); got != RuleFail {
		t.Errorf("1.8 of 8 cores without --rule-sut-cores: %s, want fail", got)
	}
}

// The server's CPU at a capacity claim is averaged over the measured window only: a ramp-up in
// which the server idled does not pull it below the saturation bound.
// Mutant validity-sut-cpu-from-zero: SUTCPU averages from t > 0 (the idle ramp-up included:
// 1.8 cores for 30 s after 0.0 for 10 s reads as 1.35, 68 % of 2).
func TestSUTCPUExcludesRampUp(t *testing.T) {
	r := healthy()
	r.Phases = Phases{RampUpSeconds: 10, SteadySeconds: 30}
	r.SteadySeconds = 30
	var series []ResourcePoint
	for i := 1; i <= 42; i++ {
		cpu := 1.8
		if i <= 10 {
			cpu = 0 // the ramp-up: users still logging in, the server idle
		}
		series = append(series, ResourcePoint{T: float64(i), CPUCores: cpu})
	}
	r.SUT = &SUT{Processes: []SUTProcess{{Name: "sut", Series: series}}}
	cpu, ok := SUTCPU(r)
	if !ok || math.Abs(cpu-1.8) > 1e-9 {
		t.Fatalf("SUTCPU = %v, %v; want 1.8 (the measured window only)", cpu, ok)
	}
	r.Peak = &PeakSearch{PeakUsers: 400, StopWhy: "reached the maximum"}
	if got := outcome(Evaluate(r, DefaultRules()), RuleSUTSaturated); got != RulePass {
		t.Errorf("1.8 of 2 cores in the window after an idle ramp-up: %s, want pass", got)
	}
}

// A light window's throughput varies by counting noise alone (a part of n transactions by
// about 1/√n): the steady-state rule allows 2/√n on top of its bound, so honest Poisson noise
// at 10 transactions a second is judged steady — and the same relative swing in a heavy window,
// where counting noise cannot explain it, is not.
// Mutant validity-steady-no-counting-noise: the bound without its 2/√n allowance (the light
// window judged unsteady).
func TestSteadyStateAllowsCountingNoise(t *testing.T) {
	light := func(scale float64) *Results {
		r := healthy()
		// six 5 s parts at 7, 13, 8, 12, 7, 13 per second: a 30 % coefficient of variation
		rates := []float64{7, 13, 8, 12, 7, 13}
		r.Series = nil
		total := 0.0
		for i := 1; i <= 30; i++ {
			tps := rates[(i-1)/5] * scale
			total += tps
			r.Series = append(r.Series, SeriesPoint{Second: i, Phase: "steady", TPS: tps})
		}
		r.Total.Pass, r.Total.Count = int64(total), int64(total)
		return r
	}
	cv, bins := SteadyVariation(light(1))
	if bins != 6 || cv < 0.25 || cv > 0.35 {
		t.Fatalf("recorded window: cv %.3f over %d parts, want about 0.3 over 6", cv, bins)
	}
	// 50 transactions a part: counting noise allows 2/√50 = 28 % more, bound 48 %
	if got := outcome(Evaluate(light(1), DefaultRules()), RuleSteady); got != RulePass {
		t.Errorf("10 tps with counting noise: %s, want pass", got)
	}
	// 5,000 a part: the allowance is 2.8 %, and a 30 % swing is not a steady state
	if got := outcome(Evaluate(light(100), DefaultRules()), RuleSteady); got != RuleFail {
		t.Errorf("1,000 tps swinging by 30%%: %s, want fail", got)
	}
}

// In the open model an iteration that started late is a failure of the driver even when no
// arrivals were counted in the window (a schedule so far behind that none arrived in it).
// Mutant validity-late-no-arrivals: late iterations with 0 arrivals judged "not checked".
func TestLateWithoutArrivalsFails(t *testing.T) {
	r := healthy()
	r.Settings.Model, r.Arrivals, r.Late = ModelOpen, 0, 7
	v := Evaluate(r, DefaultRules())
	if got := outcome(v, RuleDriverLate); got != RuleFail || v.Verdict != Invalid {
		t.Fatalf("7 late iterations, 0 arrivals counted: %s, verdict %s; want fail, invalid", got, v.Verdict)
	}
	r.Late = 0
	if got := outcome(Evaluate(r, DefaultRules()), RuleDriverLate); got != RuleNotChecked {
		t.Errorf("nothing late, nothing counted: %s, want not checked", got)
	}
}

// Latency series skip the seconds in which nothing passed: such a second has no latency, and a
// 0 ms p90 in it would drag a comparison's batch means towards zero.
// Mutant repeats-latency-idle-seconds: SteadySeries keeps seconds with 0 TPS in latency series.
func TestLatencySeriesSkipIdleSeconds(t *testing.T) {
	r := New("http")
	for i := 1; i <= 6; i++ {
		p := SeriesPoint{Second: i, Phase: "steady", TPS: 50, P90Ms: 20}
		if i%3 == 0 {
			p = SeriesPoint{Second: i, Phase: "steady"} // an idle second
		}
		r.Series = append(r.Series, p)
	}
	r.Series = append(r.Series, SeriesPoint{Second: 7, Phase: "ramp-down", TPS: 50, P90Ms: 99})
	p90 := r.SteadySeries(MetricP90)
	if len(p90) != 4 {
		t.Fatalf("p90 series %v: want the 4 seconds that passed something", p90)
	}
	for _, v := range p90 {
		if v != 20 {
			t.Errorf("p90 series %v holds a value from an idle second", p90)
		}
	}
	// throughput keeps the idle seconds: 0 tps is a measurement
	if tps := r.SteadySeries(MetricTPS); len(tps) != 6 {
		t.Errorf("tps series %v: want all 6 steady seconds", tps)
	}
}

// The steady-state rule compares the parts of the window by their rates: 16 s of a flat 1,000
// tps cut into 3 parts holds 6, 5 and 5 seconds, and a flat run varies by nothing.
// Mutant validity-steady-by-sums: the parts compared by their sums (6,000 against 5,000: an
// 11 % variation), and under a 5 % bound the flat run judged unsteady.
func TestSteadyPartsComparedByRates(t *testing.T) {
	r := healthy()
	r.Series = nil
	for i := 1; i <= 16; i++ {
		r.Series = append(r.Series, SeriesPoint{Second: i, Phase: "steady", TPS: 1000})
	}
	r.Total.Pass, r.Total.Count, r.SteadySeconds = 16000, 16000, 16
	cv, bins := SteadyVariation(r)
	if bins != 3 || cv > 1e-9 {
		t.Fatalf("a flat 1,000 tps over 16 s: cv %.4f over %d parts, want 0 over 3", cv, bins)
	}
	rules := DefaultRules()
	rules.MaxTPSVariation = 0.05
	if got := outcome(Evaluate(r, rules), RuleSteady); got != RulePass {
		t.Errorf("a flat run under a 5 %% bound: %s, want pass", got)
	}
}

// A capacity search that stops at its maximum load without a knee has no knee to measure twice:
// its capacity_search rule passes, and says what limited it.
// Mutant validity-search-max-not-checked: the rule "not checked" for any search that measured
// nothing again, the one stopped at its maximum too.
func TestSearchAtItsMaximumPasses(t *testing.T) {
	r := healthy()
	r.Peak = &PeakSearch{PeakUsers: 400, PeakTPS: 400, StopWhy: "reached the maximum of 400 users still rising: the knee is beyond it",
		Limit: "the search's maximum load", LimitWhy: "throughput still rose at the maximum of 400 users",
		Steps: []PeakStep{{Step: 1, Users: 100, Phase: "grow", Good: true}, {Step: 2, Users: 200, Phase: "grow", Good: true},
			{Step: 3, Users: 400, Phase: "grow", Good: true}, {Step: 4, Users: 400, Phase: "confirm"}}}
	v := Evaluate(r, DefaultRules())
	for _, rr := range v.Rules {
		if rr.Rule != RuleSearch {
			continue
		}
		if rr.Outcome != RulePass || !strings.Contains(rr.Detail, "limited by the search's maximum load: throughput still rose at the maximum of 400 users") {
			t.Errorf("capacity_search %s: %s; want pass, naming its limit", rr.Outcome, rr.Detail)
		}
		return
	}
	t.Fatalf("no capacity_search rule: %s", v.VerdictLine())
}
