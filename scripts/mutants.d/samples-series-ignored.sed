# report: per-second percentiles drawn from any number of transactions (the samples rule ignored in the charts)
# kill: ./report/htmlreport TestSeriesPercentilesNeedSamples
# file: report/htmlreport/view.go
s#if !report.EnoughSamples(int64(math.Round(passed)), p, r.MinSamples()) {#if false {#
