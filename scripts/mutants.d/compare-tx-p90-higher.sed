# compare: the transactions' p90 counted higher-is-better
# kill: ./report/htmlreport TestCompareDeltasAgainstBaseline
# file: report/htmlreport/compare.go
s#txPercentile(90), ms, false, false, load)#txPercentile(90), ms, true, false, load)#
