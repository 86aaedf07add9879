# the sweep is judged as one run over its concatenated points, not by its points' verdicts
# kill: ./bench/cacheperfjob TestSweepSmall
# file: bench/cacheperfjob/sweep.go
# expect: one rule per point
s#^\tout.Validity = sweepValidity(points, parts)$#\t_ = sweepValidity#
