# a fault's worst latency is taken over the whole measured window, not the fault's
# kill: ./report TestFaultRecoveryFromTheSeries
# file: report/recovery.go
/^func (r \*Results) worstP99/,/^}/s#secondOverlaps(p.Second, lo, hi)#lo <= hi#
