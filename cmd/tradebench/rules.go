package main

import (
	"flag"
	"strconv"

	"github.com/tradebench/tradebench/internal/cliflag"
	"github.com/tradebench/tradebench/report"
)

// rulesFlags are the run rules' bounds (report.Rules), shared by drive and run: flags map to
// fields; the defaults and checks are report.DefaultRules and Rules.Validate.
type rulesFlags struct {
	errors, driverCPU, late, variation, sutCPU, otherCPU string
	minSamples                                           int64
	sutCores                                             float64
}

// rulesFlagNames names the flags that set report.Rules' fields.
var rulesFlagNames = cliflag.Names{"MaxErrorRate": "rule-errors", "MaxDriverCPU": "rule-driver-cpu", "MaxLate": "rule-late",
	"MaxTPSVariation": "rule-tps-variation", "MinSUTCPU": "rule-sut-cpu", "MinSamplesP99": "rule-min-samples", "SUTCores": "rule-sut-cores",
	"MaxOtherCPU": "rule-other-cpu"}

func pctString(f float64) string { return strconv.FormatFloat(100*f, 'g', -1, 64) + "%" }

func (r *rulesFlags) register(fs *flag.FlagSet) {
	d := report.DefaultRules()
	fs.StringVar(&r.errors, "rule-errors", pctString(d.MaxErrorRate), "run rule: the highest error rate of a valid run (fraction or percent)")
	fs.StringVar(&r.driverCPU, "rule-driver-cpu", pctString(d.MaxDriverCPU), "run rule: the driver's (each agent's) CPU must stay below this share of its cores")
	fs.StringVar(&r.late, "rule-late", pctString(d.MaxLate), "run rule: open model, the most arrivals that may start late")
	fs.Int64Var(&r.minSamples, "rule-min-samples", d.MinSamplesP99, "run rule: passed transactions a p99 needs (a p90 a tenth); fewer: \"not enough samples\"")
	fs.StringVar(&r.variation, "rule-tps-variation", pctString(d.MaxTPSVariation), "run rule: the largest variation (coefficient of variation) of throughput across the measured window")
	fs.StringVar(&r.sutCPU, "rule-sut-cpu", pctString(d.MinSUTCPU), "run rule: a capacity claim (--peak) needs the server's CPU at this share of its cores, or a knee found")
	fs.Float64Var(&r.sutCores, "rule-sut-cores", 0, "run rule: the server's cores (0 = this machine's)")
	fs.StringVar(&r.otherCPU, "rule-other-cpu", pctString(d.MaxOtherCPU), "run rule: other processes on the measuring machine (each agent's) may take at most this share of its cores during the measured window; above it the verdict is inconclusive (100% = off)")
}

// config is the rules the flags give.
func (r *rulesFlags) config() (*report.Rules, error) {
	rules := report.DefaultRules()
	for _, f := range []struct {
		name string
		s    string
		to   *float64
	}{{"rule-errors", r.errors, &rules.MaxErrorRate}, {"rule-driver-cpu", r.driverCPU, &rules.MaxDriverCPU}, {"rule-late", r.late, &rules.MaxLate},
		{"rule-sut-cpu", r.sutCPU, &rules.MinSUTCPU}, {"rule-other-cpu", r.otherCPU, &rules.MaxOtherCPU}} {
		v, err := report.ParseRate(f.s)
		if err != nil {
			return nil, cliflag.Errorf("--%s: %v", f.name, err)
		}
		*f.to = v
	}
	v, err := parseFraction(r.variation)
	if err != nil {
		return nil, cliflag.Errorf("--rule-tps-variation: %v", err)
	}
	rules.MaxTPSVariation, rules.MinSamplesP99, rules.SUTCores = v, r.minSamples, r.sutCores
	if err := rules.Validate(); err != nil {
		return nil, rulesFlagNames.UsageError(err)
	}
	return &rules, nil
}

// parseFraction reads 0.2 or 20% (above 100% allowed).
func parseFraction(s string) (float64, error) {
	pct := len(s) > 0 && s[len(s)-1] == '%'
	if pct {
		s = s[:len(s)-1]
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, err
	}
	if pct {
		v /= 100
	}
	return v, nil
}
