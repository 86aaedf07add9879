# live metrics: the measured window's histogram not merged (live p90/p99 read 0)
# kill: ./driver/live TestLiveLatencyThresholdFromWindow
# file: driver/live/metrics.go
# expect: against a 10 ms bound
s#m.steadyHist.Merge(s.Hist)#_ = s.Hist#
