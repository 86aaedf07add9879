# a sweep point keeps no verdict of its own
# kill: ./bench/cacheperfjob TestSweepSmall
# file: bench/cacheperfjob/sweep.go
# expect: verdict ""
s#^\t\tp.Verdict = res.Validity.Verdict$#\t\t_ = res#
