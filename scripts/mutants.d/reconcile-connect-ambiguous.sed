# a buy refused before it was sent (connect) counts as ambiguous
# kill: ./bench/tradejob TestReconcileCounts
# file: bench/tradejob/reconcile.go
s#r.Ambiguous -= e.Count#r.Ambiguous -= 0#
