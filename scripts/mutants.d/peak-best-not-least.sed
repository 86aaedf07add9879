# peak: the peak taken at the best throughput, not the least load on the plateau
# kill: ./driver/peak TestPeakIsTheLeastLoadOnThePlateau
# file: driver/peak/conclude.go
s#s.measuredAt(p.load).Total.TPS >= (1-s.cfg.Plateau)\*top#s.measuredAt(p.load).Total.TPS >= top#
