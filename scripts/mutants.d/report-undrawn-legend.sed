# a chart keeps a legend entry for a series it never draws (the p99 of a run without a second of 1,000 passes)
# kill: ./report/htmlreport TestDefaultReportOfARecordedSearch
# file: report/htmlreport/view.go
# expect: want p50 and p90 only
s#^\t\tif !slices.ContainsFunc(s.Values, func(v \*float64) bool { return v != nil }) {#\t\tif false {#
