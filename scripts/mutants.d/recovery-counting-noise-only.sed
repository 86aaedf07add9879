# the steady state's noise ignores its own spread (counting noise only): a noisy run's ordinary seconds count as not recovered
# kill: ./report TestFaultNotRecovered
# file: report/recovery.go
s#noise := max(1.4826\*median(dev), math.Sqrt(med))#noise := math.Sqrt(med)#
