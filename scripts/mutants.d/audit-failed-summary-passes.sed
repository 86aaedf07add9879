# a failed audit is no error: 'tradebench audit' on a database that does not add up exits 0
# kill: ./trade/audit TestSummaryErrAndJSON
# file: trade/audit/audit.go
# expect: want a \*Failed
s#^\tif s.Passed {$#\tif s.Passed || true {#
