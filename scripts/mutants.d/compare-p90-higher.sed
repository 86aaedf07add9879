# compare: the headline p90 counted higher-is-better
# kill: ./report/htmlreport TestCompareDeltasAgainstBaseline
# file: report/htmlreport/compare.go
s#metricRow{"p90 (ms)", cells(p90, nil, ms, lowerBetter)}#metricRow{"p90 (ms)", cells(p90, nil, ms, higherBetter)}#
