# xmlmark run ends without an error when transactions failed (exit 0)
# kill: ./bench/xmlmarkjob TestWriteSummary
# file: bench/xmlmarkjob/xmlmarkjob.go
# expect: 3 failed transactions
s#if res.Total.Errors > 0 {#if res.Total.Errors < 0 {#
