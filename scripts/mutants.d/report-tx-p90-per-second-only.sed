# the p90 per transaction is drawn only per second, where a many-transaction scenario has too few samples (an empty chart)
# kill: ./report/htmlreport TestDefaultReportOfARecordedSearch
# file: report/htmlreport/view.go
# expect: no p90 per transaction over the window
s#^\tif c := txP90Chart(r); c != nil {#\tif c := txP90Chart(r); c != nil \&\& false {#
