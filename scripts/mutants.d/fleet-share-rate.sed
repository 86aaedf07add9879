# fleet: every agent given the whole rate
# kill: ./driver/fleet TestSharesSplitRateAndMaxInFlight
# file: driver/fleet/controller.go
s#s.Rate = cfg.Rate / float64(n)#s.Rate = cfg.Rate#
