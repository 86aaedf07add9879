# a buy cut off by the run's end is not counted as ambiguous
# kill: ./bench/tradejob TestReconcileCounts
# file: bench/tradejob/reconcile.go
s#r.Ambiguous += t.Errors + t.Stop#r.Ambiguous += t.Errors#
