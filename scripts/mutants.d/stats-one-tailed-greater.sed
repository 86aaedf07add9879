# compare: the Welch test of single runs made one-tailed (is the first mean greater?)
# kill: ./report/stats TestCompareSeriesFindsBothDirections
# file: report/stats/stats.go
# expect: want significant
s#mstats.Sample{Xs: bb}, mstats.LocationDiffers#mstats.Sample{Xs: bb}, mstats.LocationGreater#
