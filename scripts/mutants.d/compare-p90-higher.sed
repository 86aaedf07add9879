# compare: p90 counted higher-is-better (the headline)
# kill: ./report/htmlreport TestCompareDeltasAgainstBaseline
# file: report/repeats.go
s#MetricP90 = Metric{Name: "p90 (ms)", Unit: "ms", #MetricP90 = Metric{Name: "p90 (ms)", Unit: "ms", HigherBetter: true, #
