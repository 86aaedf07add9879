# report compare page: the capacity row's change not tested against the intervals (uncoloured)
# kill: ./report/htmlreport TestCompareCapacityRow
# file: report/htmlreport/compare.go
s#		change, cmp, ok := report.CapacityChange(runs\[0\].Results, r.Results)#		change, cmp, ok := report.CapacityChange(runs[0].Results, r.Results)\n		ok = false#
