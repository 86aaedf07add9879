package main

import (
	"flag"
	"math"

	"github.com/tradebench/tradebench/internal/cliflag"
	"github.com/tradebench/tradebench/report"
)

// rulesFlags are the run rules' bounds (report.Rules), shared by drive and run: each flag sets
// its field; the defaults and checks are report.DefaultRules and Rules.Validate.
type rulesFlags struct{ rules report.Rules }

// rulesFlagNames names the flags that set report.Rules' fields.
var rulesFlagNames = cliflag.Names{"MaxErrorRate": "rule-errors", "MaxDriverCPU": "rule-driver-cpu", "MaxLate": "rule-late",
	"MaxTPSVariation": "rule-tps-variation", "MinSUTCPU": "rule-sut-cpu", "MinSamplesP99": "rule-min-samples", "SUTCores": "rule-sut-cores",
	"MaxOtherCPU": "rule-other-cpu"}

func (r *rulesFlags) register(fs *flag.FlagSet) {
	r.rules = report.DefaultRules()
	cliflag.FractionVar(fs, &r.rules.MaxErrorRate, "rule-errors", 1, "run rule: the highest error rate of a valid run (fraction or percent)")
	cliflag.FractionVar(fs, &r.rules.MaxDriverCPU, "rule-driver-cpu", 1, "run rule: the driver's (each agent's) CPU must stay below this share of its cores")
	cliflag.FractionVar(fs, &r.rules.MaxLate, "rule-late", 1, "run rule: open model, the most arrivals that may start late")
	fs.Int64Var(&r.rules.MinSamplesP99, "rule-min-samples", r.rules.MinSamplesP99, "run rule: passed transactions a p99 needs (a p90 a tenth); fewer: \"not enough samples\"")
	cliflag.FractionVar(fs, &r.rules.MaxTPSVariation, "rule-tps-variation", math.Inf(1), "run rule: the largest variation (coefficient of variation) of throughput across the measured window")
	cliflag.FractionVar(fs, &r.rules.MinSUTCPU, "rule-sut-cpu", 1, "run rule: a capacity claim (--peak) needs the server's CPU at this share of its cores, or a knee found")
	fs.Float64Var(&r.rules.SUTCores, "rule-sut-cores", 0, "run rule: the server's cores (0 = this machine's)")
	cliflag.FractionVar(fs, &r.rules.MaxOtherCPU, "rule-other-cpu", 1, "run rule: other processes on the measuring machine (each agent's) may take at most this share of its cores during the measured window; above it the verdict is inconclusive (100% = off)")
}

// config is the rules the flags give.
func (r *rulesFlags) config() (*report.Rules, error) {
	rules := r.rules
	if err := rules.Validate(); err != nil {
		return nil, rulesFlagNames.UsageError(err)
	}
	return &rules, nil
}
