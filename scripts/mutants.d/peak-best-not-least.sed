# peak: the peak taken at the best throughput, not the least load on the plateau
# kill: ./driver/peak TestPeakIsTheLeastLoadOnThePlateau
# file: driver/peak/peak.go
s#s.measured\[p.load\].Total.TPS >= (1-cfg.Plateau)\*top#s.measured[p.load].Total.TPS >= top#
