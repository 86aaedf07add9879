# a --max-p90 threshold converted to seconds instead of milliseconds (1.5 s becomes 1.5)
# kill: ./report TestLimits
# file: report/limits.go
# expect: thresholds
s#float64(d) / float64(time.Millisecond)#float64(d) / float64(time.Second)#
