# compare: the transactions' p90 counted higher-is-better
# kill: ./report/htmlreport TestCompareDeltasAgainstBaseline
# file: report/htmlreport/compare.go
s#return t.P90Ms }, ms, false, false, load)#return t.P90Ms }, ms, true, false, load)#
