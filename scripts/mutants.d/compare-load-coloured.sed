# compare: the throughput of a run at another offered load coloured better/worse
# kill: ./report/htmlreport TestCompareLoadChangeSaidOnce
# file: report/htmlreport/significance.go
s#return m.Name == report.MetricTPS.Name || m.Name == report.MetricHits.Name#return false#
s#if throughput \&\& len(load\[i\]) > 0 {#if false {#
