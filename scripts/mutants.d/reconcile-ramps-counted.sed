# results with ramps are reconciled though they count only the measured window
# kill: ./bench/tradejob TestReconcileCounts
# file: bench/tradejob/reconcile.go
s#case res.Phases.RampUpSeconds > 0 || res.Phases.RampDownSeconds > 0:#case false:#
