# compare: the transactions' p90 counted higher-is-better
# kill: ./report/htmlreport TestCompareDeltasAgainstBaseline
# file: report/htmlreport/compare.go
s#row.P90 = cells(p, missing, ms, lowerBetter)#row.P90 = cells(p, missing, ms, higherBetter)#
