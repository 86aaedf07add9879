# repeats: a repeated capacity search's capacity not kept per run
# kill: ./driver TestRepeatedCapacitySearch
# file: report/repeats.go
s#rep.PeakTPS, rep.PeakTPSHalf, rep.PeakUsers, rep.PeakRate = p.PeakTPS, p.PeakTPSHalf, p.PeakUsers, p.PeakRate#_ = p#
