# compare: the transactions' p90 counted higher-is-better
# kill: ./report/htmlreport TestCompareDeltasAgainstBaseline
# file: report/htmlreport/compare.go
s#txPercentile(90), report.FormatMs, false, false, load)#txPercentile(90), report.FormatMs, true, false, load)#
