# compare: two constant series at different levels get p = 1
# kill: ./report/stats TestCompareSeriesConstantLevels
# file: report/stats/stats.go
# expect: want significant
s#out.P = 0#out.P = 1#
