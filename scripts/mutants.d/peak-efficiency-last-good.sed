# capacity search: efficiency compared with the last good step, not the best
# kill: ./driver/peak TestEfficiencyAgainstTheBest
# file: driver/peak/measure.go
# expect: judged past the knee
s#s.bestPer = max(s.bestPer, res.Total.TPS/load)#s.bestPer = res.Total.TPS / load#
