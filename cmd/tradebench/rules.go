package main

import (
	"flag"

	"github.com/tradebench/tradebench/internal/cliflag"
	"github.com/tradebench/tradebench/report"
)

// rulesFlags are the run rules' bounds (report.Rules), shared by drive and run: the flags bind
// to its fields; the defaults and checks are report.DefaultRules and Rules.Validate.
type rulesFlags struct{ report.Rules }

// rulesFlagNames names the flags that set report.Rules' fields.
var rulesFlagNames = cliflag.Names{"MaxErrorRate": "rule-errors", "MaxDriverCPU": "rule-driver-cpu", "MaxLate": "rule-late",
	"MaxTPSVariation": "rule-tps-variation", "MinSUTCPU": "rule-sut-cpu", "MinSamplesP99": "rule-min-samples", "SUTCores": "rule-sut-cores",
	"MaxOtherCPU": "rule-other-cpu"}

func (r *rulesFlags) register(fs *flag.FlagSet) {
	r.Rules = report.DefaultRules()
	cliflag.AddFraction(fs, &r.MaxErrorRate, "rule-errors", 1, "run rule: the highest error rate of a valid run (fraction or percent)")
	cliflag.AddFraction(fs, &r.MaxDriverCPU, "rule-driver-cpu", 1, "run rule: the driver's (each agent's) CPU must stay below this share of its cores")
	cliflag.AddFraction(fs, &r.MaxLate, "rule-late", 1, "run rule: open model, the most arrivals that may start late")
	fs.Int64Var(&r.MinSamplesP99, "rule-min-samples", r.MinSamplesP99, "run rule: passed transactions a p99 needs (a p90 a tenth); fewer: \"not enough samples\"")
	cliflag.AddFraction(fs, &r.MaxTPSVariation, "rule-tps-variation", 0, "run rule: the largest variation (coefficient of variation) of throughput across the measured window")
	cliflag.AddFraction(fs, &r.MinSUTCPU, "rule-sut-cpu", 1, "run rule: a capacity claim (--peak) needs the server's CPU at this share of its cores, or a knee found")
	fs.Float64Var(&r.SUTCores, "rule-sut-cores", 0, "run rule: the server's cores (0 = this machine's)")
	cliflag.AddFraction(fs, &r.MaxOtherCPU, "rule-other-cpu", 1, "run rule: other processes on the measuring machine (each agent's) may take at most this share of its cores during the measured window; above it the verdict is inconclusive (100% = off)")
}

// config is the rules the flags give, checked.
func (r *rulesFlags) config() (*report.Rules, error) {
	rules := r.Rules
	if err := rules.Validate(); err != nil {
		return nil, rulesFlagNames.UsageError(err)
	}
	return &rules, nil
}
