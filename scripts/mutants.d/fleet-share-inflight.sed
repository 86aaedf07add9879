# fleet: every agent given the whole max-in-flight
# kill: ./driver/fleet TestSharesSplitRateAndMaxInFlight
# file: driver/fleet/controller.go
s#s.MaxInFlight = split(cfg.MaxInFlight, i, n)#s.MaxInFlight = cfg.MaxInFlight#
