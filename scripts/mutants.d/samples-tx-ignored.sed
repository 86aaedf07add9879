# compare: a transaction's p90 shown whatever its samples
# kill: ./report/htmlreport TestSamplesRuleInComparisons
# file: report/htmlreport/significance.go
s#if few\[i\] = slices.ContainsFunc(per\[i\], math.IsNaN); few\[i\] {#if false {#
