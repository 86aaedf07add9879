# compare: changes tested against the previous run, not the baseline
# kill: ./report/htmlreport TestCompareDeltasAgainstBaseline
# file: report/htmlreport/significance.go
s#c := report.Compare(runs\[0\].Results, r.Results, m)#c := report.Compare(runs[i-1].Results, r.Results, m)#
s#d := relative(centre\[0\], centre\[i\], m)#d := relative(centre[i-1], centre[i], m)#
