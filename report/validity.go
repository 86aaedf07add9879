package report

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/tradebench/tradebench/internal/setting"
)

// This file is the run rules: the checks that say whether a result means what it claims (the
// papers' method — zero errors, the server, not the driver, saturated at a claimed peak — and
// the care SPEC and TPC take before publishing a number). Evaluate is a pure function of the
// results and the rules' bounds, so every rule can be tested on recorded measurements.

// Verdicts of a run.
const (
	// Valid: every rule that applies held.
	Valid = "valid"
	// Invalid: a rule failed; the numbers do not measure what they claim.
	Invalid = "invalid"
	// Inconclusive: nothing failed, but a rule could not be decided (e.g. too few samples for a
	// percentile shown): the numbers are honest but not yet trustworthy.
	Inconclusive = "inconclusive"
)

// Rule outcomes.
const (
	RulePass         = "pass"
	RuleFail         = "fail"
	RuleInconclusive = "inconclusive"
	// RuleNotChecked: the rule could not be applied to this run (no data, or not meaningful,
	// e.g. the driver's CPU in a run whose driver and server share one process).
	RuleNotChecked = "not checked"
)

// The rules' names, as they appear in the results' validity and in docs/guide.md "Run rules".
const (
	RuleErrors       = "errors"
	RuleDriverCPU    = "driver_cpu"
	RuleDriverLate   = "driver_late"
	RuleSamples      = "samples"
	RuleSteady       = "steady_state"
	RuleLost         = "nothing_lost"
	RuleAudit        = "audit"
	RuleSUTSaturated = "sut_saturated"
	RuleOther        = "other_processes"
	RuleSearch       = "capacity_search"
	RuleFaults       = "faults" // faults.go
)

// Validity is a result's verdict under the run rules.
type Validity struct {
	Verdict string `json:"verdict"` // Valid, Invalid or Inconclusive
	// Reasons are the rules that failed or could not be decided: why the verdict is not valid.
	Reasons []RuleResult `json:"reasons,omitempty"`
	// Rules is every rule's outcome, passed ones included, so a reader sees what was checked.
	Rules []RuleResult `json:"rules"`
}

// RuleResult is one rule applied to one run: what was measured against which bound.
type RuleResult struct {
	Rule    string  `json:"rule"`
	Outcome string  `json:"outcome"` // RulePass, RuleFail, RuleInconclusive, RuleNotChecked
	Value   float64 `json:"value"`
	Bound   float64 `json:"bound"`
	// Detail says it in words, e.g. "error rate 2.5000% > 0.0100%".
	Detail string `json:"detail"`
}

// String is the rule's line in a summary: "errors: error rate 2.5% > 0.01%".
func (r RuleResult) String() string { return r.Rule + ": " + r.Detail }

// Rules are the bounds of the run rules. DefaultRules gives the documented defaults; each
// field has a command-line flag (docs/guide.md, "Run rules").
type Rules struct {
	// MaxErrorRate is the largest error rate (failed / all transactions, a fraction) of a valid
	// run: the 2007 paper's criterion is 0.01 %.
	MaxErrorRate float64
	// MaxDriverCPU bounds the load generator's own CPU use, as a fraction of the cores it may
	// use (GOMAXPROCS): a driver above it may be what limits the throughput.
	MaxDriverCPU float64
	// MaxLate bounds the open model's iterations that started late (a fraction of the
	// measured window's arrivals): a driver that cannot keep its schedule is the bottleneck.
	MaxLate float64
	// MinSamplesP99 is the fewest passed transactions for a p99 to be shown as a number; the
	// p90 needs a tenth of it. Fewer: "not enough samples" and the run is inconclusive.
	MinSamplesP99 int64
	// MaxTPSVariation bounds the coefficient of variation of throughput across the measured
	// window (cut into up to SteadyBins equal parts): a steady state must be steady. The bound
	// applied adds 2/√n for parts of n transactions, the variation counting noise alone gives.
	MaxTPSVariation float64
	// MinSUTCPU is, for a capacity claim (a peak search), the fraction of the server's cores
	// its CPU must reach — unless the search found the knee (throughput stopped rising or
	// latency climbed): else the bottleneck is outside the server.
	MinSUTCPU float64
	// SUTCores is the system under test's cores (0 = the measuring machine's, which is right
	// when the server runs beside the driver).
	SUTCores float64
	// MaxOtherCPU bounds what other processes on the measuring machine (each agent's, in a
	// distributed run) took during the measured window, as a fraction of the machine's cores:
	// above it the numbers measure the neighbours too, and the verdict cannot be valid
	// (inconclusive). A capacity search is judged on its confirming run and every step. 1
	// turns the rule off.
	MaxOtherCPU float64
}

// Default bounds of the run rules.
const (
	DefaultRuleMaxErrorRate    = 0.0001
	DefaultRuleMaxDriverCPU    = 0.8
	DefaultRuleMaxLate         = 0.01
	DefaultRuleMinSamplesP99   = 1000
	DefaultRuleMaxTPSVariation = 0.2
	DefaultRuleMinSUTCPU       = 0.8
	DefaultRuleMaxOtherCPU     = 0.1
	// SteadyBins is how many equal parts the measured window is cut into to judge its
	// steadiness: fewer when the window is short, for a part must hold at least
	// SteadyBinSeconds (a second's throughput varies too much to judge by); a window of
	// fewer than 3 parts is not judged.
	SteadyBins       = 6
	SteadyBinSeconds = 5
)

// DefaultRules are the documented bounds.
func DefaultRules() Rules {
	return Rules{MaxErrorRate: DefaultRuleMaxErrorRate, MaxDriverCPU: DefaultRuleMaxDriverCPU, MaxLate: DefaultRuleMaxLate,
		MinSamplesP99: DefaultRuleMinSamplesP99, MaxTPSVariation: DefaultRuleMaxTPSVariation, MinSUTCPU: DefaultRuleMinSUTCPU,
		MaxOtherCPU: DefaultRuleMaxOtherCPU}
}

// Validate reports an impossible bound, naming its field.
func (r Rules) Validate() error {
	frac := setting.Fraction
	return errors.Join(frac("MaxErrorRate", r.MaxErrorRate), frac("MaxDriverCPU", r.MaxDriverCPU), frac("MaxLate", r.MaxLate),
		frac("MinSUTCPU", r.MinSUTCPU), frac("MaxOtherCPU", r.MaxOtherCPU), nonNeg("MaxTPSVariation", r.MaxTPSVariation),
		nonNeg("SUTCores", r.SUTCores),
		nonNeg("MinSamplesP99", float64(r.MinSamplesP99)))
}

func nonNeg(field string, v float64) error {
	if math.IsNaN(v) || v < 0 {
		return setting.Errorf(field, "must not be negative, got %g", v)
	}
	return nil
}

// EnoughSamples reports whether n passed transactions are enough for the percentile p (50, 90,
// 99, 99.9) to be shown as a number: p99 needs min, and each nine fewer a tenth of it (p90:
// min/10), the median at least one. The rule: about ten samples beyond the percentile.
func EnoughSamples(n int64, p float64, min int64) bool {
	if n == 0 {
		return false
	}
	need := float64(min) * (1 - 0.99) / (1 - p/100)
	return float64(n) >= need
}

// Evaluate applies the rules to res and returns its verdict. It reads only res.
func Evaluate(res *Results, rules Rules) *Validity {
	v := &Validity{}
	add := func(r RuleResult) { v.Rules = append(v.Rules, r) }
	add(ruleErrors(res, rules))
	add(ruleDriverCPU(res, rules))
	if res.Settings.Model == ModelOpen {
		add(ruleLate(res, rules))
	}
	add(ruleSamples(res, rules))
	add(ruleSteady(res, rules))
	add(ruleLost(res))
	add(ruleOther(res, rules))
	if res.Audit != nil || res.AuditError != "" {
		add(ruleAudit(res))
	}
	if res.Peak != nil {
		add(ruleSaturated(res, rules))
		add(ruleSearch(res))
	}
	if len(res.Faults) > 0 {
		add(ruleFaults(res))
	}
	v.Verdict = Valid
	for _, r := range v.Rules {
		switch r.Outcome {
		case RuleFail:
			v.Verdict = Invalid
			v.Reasons = append(v.Reasons, r)
		case RuleInconclusive:
			if v.Verdict == Valid {
				v.Verdict = Inconclusive
			}
			v.Reasons = append(v.Reasons, r)
		}
	}
	return v
}

func pct(f float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4f", 100*f), "0"), ".") + "%"
}

func ruleErrors(res *Results, rules Rules) RuleResult {
	r := RuleResult{Rule: RuleErrors, Bound: rules.MaxErrorRate, Value: res.ErrorRate()}
	errs, excused := res.Total.Errors, ""
	if n := res.FaultErrors(); n > 0 {
		// errors inside injected faults' windows are the faults' cost, judged by RuleFaults
		errs -= n
		r.Value = float64(errs) / float64(res.Total.Count)
		excused = fmt.Sprintf(" (%d errors in fault windows not counted)", n)
	}
	switch {
	case res.Total.Count == 0 || res.Total.Pass == 0:
		r.Outcome, r.Value = RuleFail, 1
		r.Detail = fmt.Sprintf("nothing passed: %d transactions, %d failed", res.Total.Count, res.Total.Errors)
	case r.Value > r.Bound:
		r.Outcome = RuleFail
		r.Detail = fmt.Sprintf("error rate %s (%d of %d) > %s%s", pct(r.Value), errs, res.Total.Count, pct(r.Bound), excused)
	default:
		r.Outcome = RulePass
		r.Detail = fmt.Sprintf("error rate %s ≤ %s%s", pct(r.Value), pct(r.Bound), excused)
	}
	return r
}

func ruleDriverCPU(res *Results, rules Rules) RuleResult {
	r := RuleResult{Rule: RuleDriverCPU, Bound: rules.MaxDriverCPU}
	// a distributed run: each agent's own driver
	if len(res.Agents) > 0 {
		worst, who, seen := 0.0, "", false
		for _, a := range res.Agents {
			if a.DriverCPU != nil {
				seen = true
				if *a.DriverCPU >= worst {
					worst, who = *a.DriverCPU, a.Name
				}
			}
		}
		if !seen {
			r.Outcome, r.Detail = RuleNotChecked, "the agents did not report their CPU"
			return r
		}
		r.Value = worst
		if worst > r.Bound {
			r.Outcome = RuleFail
			r.Detail = fmt.Sprintf("agent %s's driver used %s of its cores > %s: the load generator may be the bottleneck", who, pct(worst),
				pct(r.Bound))
		} else {
			r.Outcome = RulePass
			r.Detail = fmt.Sprintf("the busiest agent (%s) used %s of its cores ≤ %s", who, pct(worst), pct(r.Bound))
		}
		return r
	}
	d := res.Driver
	switch {
	case d == nil:
		r.Outcome, r.Detail = RuleNotChecked, "the driver's CPU was not measured"
	case d.SharedWithSUT:
		r.Value = d.Utilisation
		r.Outcome = RuleNotChecked
		r.Detail = fmt.Sprintf("the driver shares its process and machine with the server (an embedded run): their CPU (%s of %d cores) "+
			"cannot be told apart; the driver's cost is part of the capacity measured", pct(d.Utilisation), d.Cores)
	case d.Utilisation > r.Bound:
		r.Value, r.Outcome = d.Utilisation, RuleFail
		r.Detail = fmt.Sprintf("the driver used %s of its %d cores > %s: the load generator may be the bottleneck", pct(d.Utilisation),
			d.Cores, pct(r.Bound))
	default:
		r.Value, r.Outcome = d.Utilisation, RulePass
		r.Detail = fmt.Sprintf("the driver used %s of its %d cores ≤ %s", pct(d.Utilisation), d.Cores, pct(r.Bound))
	}
	return r
}

func ruleLate(res *Results, rules Rules) RuleResult {
	r := RuleResult{Rule: RuleDriverLate, Bound: rules.MaxLate}
	if res.Arrivals == 0 {
		if res.Late > 0 {
			r.Outcome, r.Value = RuleFail, 1
			r.Detail = fmt.Sprintf("%d iterations started late", res.Late)
			return r
		}
		r.Outcome, r.Detail = RuleNotChecked, "no arrivals counted in the measured window"
		return r
	}
	r.Value = float64(res.Late) / float64(res.Arrivals)
	if r.Value > r.Bound {
		r.Outcome = RuleFail
		r.Detail = fmt.Sprintf("%d of %d arrivals (%s) started late > %s: the driver could not keep the arrival schedule", res.Late,
			res.Arrivals, pct(r.Value), pct(r.Bound))
	} else {
		r.Outcome = RulePass
		r.Detail = fmt.Sprintf("%d of %d arrivals (%s) started late ≤ %s", res.Late, res.Arrivals, pct(r.Value), pct(r.Bound))
	}
	return r
}

func ruleSamples(res *Results, rules Rules) RuleResult {
	n := res.Total.Pass
	r := RuleResult{Rule: RuleSamples, Value: float64(n), Bound: float64(rules.MinSamplesP99)}
	switch {
	case n == 0:
		r.Outcome, r.Detail = RuleInconclusive, "no passed transaction: no percentile can be shown"
	case !EnoughSamples(n, 99, rules.MinSamplesP99):
		r.Outcome = RuleInconclusive
		r.Detail = fmt.Sprintf("%d passed transactions in the measured window: p99 needs ≥ %d (not enough samples)", n, rules.MinSamplesP99)
	default:
		r.Outcome = RulePass
		r.Detail = fmt.Sprintf("%d passed transactions ≥ %d for the p99", n, rules.MinSamplesP99)
	}
	return r
}

// SteadyVariation is the coefficient of variation of throughput across the measured window
// cut into up to SteadyBins equal parts, and how many parts there were (fewer than 3: not
// judged).
func SteadyVariation(res *Results) (cv float64, bins int) {
	var tps []float64
	for _, p := range res.Series {
		if p.Phase == "steady" {
			tps = append(tps, p.TPS)
		}
	}
	bins = min(SteadyBins, len(tps)/SteadyBinSeconds)
	if bins < 3 {
		return 0, bins
	}
	sums := make([]float64, bins)
	for i, v := range tps {
		sums[i*bins/len(tps)] += v
	}
	// equal parts hold equal numbers of seconds up to one: compare rates, not sums
	counts := make([]float64, bins)
	for i := range tps {
		counts[i*bins/len(tps)]++
	}
	var mean float64
	for i := range sums {
		sums[i] /= counts[i]
		mean += sums[i]
	}
	mean /= float64(bins)
	if mean == 0 {
		return 0, bins
	}
	var ss float64
	for _, s := range sums {
		ss += (s - mean) * (s - mean)
	}
	return math.Sqrt(ss/float64(bins-1)) / mean, bins
}

func ruleSteady(res *Results, rules Rules) RuleResult {
	r := RuleResult{Rule: RuleSteady, Bound: rules.MaxTPSVariation}
	cv, bins := SteadyVariation(res)
	r.Value = cv
	if bins >= 3 {
		// counting noise alone varies a part of n transactions by about 1/√n: the bound allows
		// twice that on top, so a short, light window is not judged unsteady by chance
		perBin := float64(res.Total.Pass) / float64(bins)
		if perBin > 0 {
			r.Bound += 2 / math.Sqrt(perBin)
		}
	}
	switch {
	case bins < 3:
		r.Outcome = RuleNotChecked
		r.Detail = fmt.Sprintf("the measured window is shorter than %d s: too short to judge its steadiness", 3*SteadyBinSeconds)
	case cv > r.Bound:
		r.Outcome = RuleFail
		r.Detail = fmt.Sprintf("throughput varied by %s (coefficient of variation over %d parts of the window) > %s: not a steady state",
			pct(cv), bins, pct(r.Bound))
	default:
		r.Outcome = RulePass
		r.Detail = fmt.Sprintf("throughput varied by %s over %d parts of the window ≤ %s", pct(cv), bins, pct(r.Bound))
	}
	return r
}

func ruleLost(res *Results) RuleResult {
	r := RuleResult{Rule: RuleLost}
	var lost []string
	for _, a := range res.Agents {
		if a.State == AgentLost {
			lost = append(lost, a.Name)
		}
	}
	r.Value = float64(len(lost) + int(res.Dropped))
	switch {
	case len(lost) > 0:
		r.Outcome = RuleFail
		r.Detail = fmt.Sprintf("%d agent(s) lost (%s): their load and measurements are missing", len(lost), strings.Join(lost, ", "))
	case res.Dropped > 0:
		r.Outcome = RuleFail
		r.Detail = fmt.Sprintf("%d arrivals dropped at the in-flight cap: the offered load was not applied", res.Dropped)
	default:
		r.Outcome, r.Detail = RulePass, "no agent lost, no arrival dropped"
	}
	return r
}

func ruleAudit(res *Results) RuleResult {
	a := res.Audit
	if a == nil {
		return RuleResult{Rule: RuleAudit, Outcome: RuleInconclusive,
			Detail: "the audit could not run (" + res.AuditError + "): nothing shows the system did the work it was credited for"}
	}
	r := RuleResult{Rule: RuleAudit, Value: float64(max(a.ViolationCount, int64(len(a.Violations))))}
	if a.Passed {
		r.Outcome = RulePass
		r.Detail = fmt.Sprintf("the audit passed (%d checks)", a.Checks)
	} else {
		r.Outcome = RuleFail
		r.Detail = fmt.Sprintf("the audit found %.0f violations: the system did not do the work it was credited for", r.Value)
	}
	return r
}

// ruleOther judges what other processes took from the measuring machine during the measured
// window (each agent's machine in a distributed run; a capacity search's confirming run and
// every step): above the bound the run is inconclusive, naming the share and the busiest
// others. It is never a failure: the numbers may be right, but nothing shows they are the
// platform's alone.
func ruleOther(res *Results, rules Rules) RuleResult {
	r := RuleResult{Rule: RuleOther, Bound: rules.MaxOtherCPU}
	type window struct {
		where string
		m     *Machine
	}
	var ws []window
	if len(res.Agents) > 0 {
		for _, a := range res.Agents {
			if a.Machine != nil {
				ws = append(ws, window{"agent " + a.Name + "'s machine", a.Machine})
			}
		}
	} else if res.Machine != nil {
		ws = append(ws, window{"the measured window", res.Machine})
	}
	worst, where := -1.0, ""
	var at *Machine
	for _, w := range ws {
		if w.m.OtherShare > worst {
			worst, where, at = w.m.OtherShare, w.where, w.m
		}
	}
	if p := res.Peak; p != nil {
		for _, st := range p.Steps {
			// a superseded step was measured again: its successor is the one held to the bound
			if st.Phase != "confirm" && !st.Superseded && st.OtherShare > worst {
				worst, where, at = st.OtherShare, fmt.Sprintf("search step %d (%s)", st.Step, st.load()), nil
			}
		}
	}
	if worst < 0 {
		r.Outcome, r.Detail = RuleNotChecked, "the machine's CPU was not measured (no /proc): other processes may have taken part of it"
		return r
	}
	r.Value = worst
	if worst <= r.Bound {
		r.Outcome = RulePass
		r.Detail = fmt.Sprintf("other processes took %s of the machine ≤ %s (worst: %s)", pct(worst), pct(r.Bound), where)
		if at != nil {
			r.Detail = fmt.Sprintf("other processes took %s of the machine's %d cores ≤ %s (worst: %s)", pct(worst), at.Cores, pct(r.Bound), where)
		}
		return r
	}
	r.Outcome = RuleInconclusive
	r.Detail = fmt.Sprintf("other processes took %s of the machine > %s during %s: the numbers measure the neighbours too", pct(worst),
		pct(r.Bound), where)
	if at != nil {
		r.Detail = fmt.Sprintf("other processes took %.2f of %d cores (%s > %s) during %s: the numbers measure the neighbours too",
			at.OtherCores, at.Cores, pct(worst), pct(r.Bound), where)
		if len(at.Busiest) > 0 {
			names := make([]string, len(at.Busiest))
			for i, p := range at.Busiest {
				names[i] = p.String()
			}
			r.Detail += "; busiest: " + strings.Join(names, ", ")
		}
	}
	if m := res.Machine; m != nil && m.SUTNotFound != "" {
		// the target's own server may be among those others: say why it was not counted ours
		r.Detail += "; the target's server was not counted as the system under test: " + m.SUTNotFound + " (name it with drive --sut-metrics)"
	}
	return r
}

// OtherShare is the largest share of a measuring machine other processes took during the
// results' measured window: the driver's machine, or in a distributed run each agent's (false:
// not measured). The other_processes rule judges the same windows.
func (r *Results) OtherShare() (float64, bool) {
	worst, ok := 0.0, false
	if len(r.Agents) > 0 {
		for _, a := range r.Agents {
			if a.Machine != nil {
				worst, ok = max(worst, a.Machine.OtherShare), true
			}
		}
		return worst, ok
	}
	if r.Machine != nil {
		return r.Machine.OtherShare, true
	}
	return 0, false
}

// ruleSearch judges whether a capacity search supports its capacity: the steps around the knee
// agreed on a second measurement and the confirming run agreed with the search within the
// noise (package peak says where they did not: PeakSearch.Doubt). A doubt is inconclusive.
func ruleSearch(res *Results) RuleResult {
	p := res.Peak
	r := RuleResult{Rule: RuleSearch, Value: float64(len(p.Doubt))}
	if len(p.Doubt) > 0 {
		r.Outcome, r.Detail = RuleInconclusive, strings.Join(p.Doubt, "; ")
		return r
	}
	checked := false
	for _, st := range p.Steps {
		checked = checked || st.Phase == "remeasure"
	}
	if p.Knee && !checked {
		// results of a search that did not measure twice (written before it did)
		r.Outcome, r.Detail = RuleNotChecked, "the search did not measure the steps around its knee twice"
		return r
	}
	r.Outcome = RulePass
	r.Detail = "the steps around the knee agreed on a second measurement and the confirming run agreed with the search"
	if p.Limit != "" {
		r.Detail += "; limited by " + p.Limit + ": " + p.LimitWhy
	}
	return r
}

// SUTCPU is the system under test's CPU in cores, summed over its processes and averaged over
// the measured window; false when the results have no sut section.
func SUTCPU(res *Results) (float64, bool) {
	parts := SUTParts(res)
	total := 0.0
	for _, p := range parts {
		total += p.Cores
	}
	return total, len(parts) > 0
}

// SUTParts is the system under test's CPU by process (or group: "postgres ×17", its database's
// backends), each averaged over the measured window, in the sut section's order; a process
// with no sample in the window is left out.
func SUTParts(res *Results) []MachineProcess {
	if res.SUT == nil || len(res.SUT.Processes) == 0 {
		return nil
	}
	from := res.Phases.RampUpSeconds
	to := from + res.SteadySeconds
	var out []MachineProcess
	for _, p := range res.SUT.Processes {
		var sum float64
		var n int
		for _, pt := range p.Series {
			// a point covers the second before it
			if pt.T > from && pt.T <= to+0.5 {
				sum += pt.CPUCores
				n++
			}
		}
		if n > 0 {
			out = append(out, MachineProcess{Name: p.Name, PID: p.PID, Cores: sum / float64(n), Listen: p.Listen, From: p.From, Role: p.Role})
		}
	}
	return out
}

// partsText is SUTParts as the summary says them: "tradebench 1.08, postgres ×17 0.80".
func partsText(parts []MachineProcess) string {
	each := make([]string, len(parts))
	for i, x := range parts {
		each[i] = fmt.Sprintf("%s %.2f", x.Name, x.Cores)
	}
	return strings.Join(each, ", ")
}

// sutCores is the cores the server could use: the rule's setting, else the measuring
// machine's (the server beside the driver).
func sutCores(res *Results, rules Rules) float64 {
	switch {
	case rules.SUTCores > 0:
		return rules.SUTCores
	case res.System != nil && res.System.CPUs > 0:
		return float64(res.System.CPUs)
	case res.Disclosure != nil && res.Disclosure.Hardware.Cores > 0:
		return float64(res.Disclosure.Hardware.Cores)
	}
	return 0
}

func ruleSaturated(res *Results, rules Rules) RuleResult {
	r := RuleResult{Rule: RuleSUTSaturated, Bound: rules.MinSUTCPU}
	cpu, ok := SUTCPU(res)
	cores := sutCores(res, rules)
	knee := res.Peak.Knee
	if ok && cores > 0 {
		r.Value = cpu / cores
	}
	switch {
	case strings.HasPrefix(res.Peak.StopWhy, Interrupted):
		// stopped before its knee or its confirming run: nothing to judge the server by
		r.Outcome = RuleNotChecked
		r.Detail = "the search was " + res.Peak.StopWhy
	case ok && cores > 0 && r.Value >= r.Bound:
		r.Outcome = RulePass
		r.Detail = fmt.Sprintf("the server used %.2f of %g cores (%s ≥ %s) at the peak", cpu, cores, pct(r.Value), pct(r.Bound))
	case knee:
		r.Outcome = RulePass
		r.Detail = fmt.Sprintf("latency past the knee: %s", res.Peak.StopWhy)
		if ok && cores > 0 {
			r.Detail += fmt.Sprintf(" (the server used %.2f of %g cores", cpu, cores)
			if r.Value < r.Bound {
				r.Detail += ": its latency climbed before its CPU filled — a lock, the database, or other processes on this machine may " +
					"be what limits it"
			}
			r.Detail += ")"
		}
	case !ok || cores == 0:
		r.Outcome = RuleInconclusive
		r.Detail = "the server's CPU was not measured (--sut-metrics) and the search found no knee: nothing shows the server saturated"
	default:
		r.Outcome = RuleFail
		r.Detail = fmt.Sprintf("the server used %.2f of %g cores (%s < %s) and the search found no knee (%s): the bottleneck is outside "+
			"the server", cpu, cores, pct(r.Value), pct(r.Bound), res.Peak.StopWhy)
	}
	return r
}

// InvalidError is a run that completed but broke a run rule: its numbers do not measure what
// they claim. (The command gives it an exit status of its own.)
type InvalidError struct{ Reasons []RuleResult }

func (e *InvalidError) Error() string {
	parts := make([]string, 0, len(e.Reasons))
	for _, r := range e.Reasons {
		if r.Outcome == RuleFail {
			parts = append(parts, r.String())
		}
	}
	return "the run is INVALID: " + strings.Join(parts, "; ")
}

// Err is the verdict as an error: an *InvalidError when invalid, else nil.
func (v *Validity) Err() error {
	if v == nil || v.Verdict != Invalid {
		return nil
	}
	return &InvalidError{Reasons: v.Reasons}
}

// Judge evaluates the rules on r into r.Validity and returns the verdict as an error (nil
// unless invalid).
func (r *Results) Judge(rules Rules) error {
	r.Validity = Evaluate(r, rules)
	return r.Validity.Err()
}
