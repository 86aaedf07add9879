# peak: an interrupted search names no best step (its headline "0.0 tps at 0 users")
# kill: ./driver/peak TestInterruptedSearchNamesItsBestStep
# file: driver/peak/conclude.go
s#	ps.PeakTPS, ps.PeakUsers, ps.PeakRate, ps.PeakStep, ps.PeakP90Ms, ps.PeakSUTCPU = best.TPS, best.Users, best.Rate, best.Step, best.P90Ms, best.SUTCPU#	_ = best.SUTCPU#
