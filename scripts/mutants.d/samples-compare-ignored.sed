# compare: a headline percentile shown whatever its runs' samples
# kill: ./report/htmlreport TestSamplesRuleInComparisons
# file: report/htmlreport/significance.go
s#if few\[i\] = !r.Results.RepeatsHaveSamples(m); few\[i\] {#if false {#
