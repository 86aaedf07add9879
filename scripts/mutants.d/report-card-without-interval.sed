# the report's capacity card shows the bare capacity, without the ± the terminal states
# kill: ./report/htmlreport TestDefaultReportOfARecordedSearch
# file: report/htmlreport/view.go
# expect: the capacity card lacks the ±
s#^\t\t\tv.Headline.PeakTPS = p.Capacity() // .*#\t\t\tv.Headline.PeakTPS = formatTPS(p.PeakTPS)#
