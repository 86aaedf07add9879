# compare: deltas against the previous run, not the baseline
# kill: ./report/htmlreport TestCompareDeltasAgainstBaseline
# file: report/htmlreport/compare.go
s#delta(vals\[0\], v, dir)#delta(vals[i-1], v, dir)#
