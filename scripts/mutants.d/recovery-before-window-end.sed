# throughput counts as recovered after a few good seconds though it drops again inside the window
# kill: ./report TestFaultRecoveryFromTheSeries
# file: report/recovery.go
s#if good >= RecoveryHold \&\& pts\[j\].Second >= endSecond {#if good >= RecoveryHold \&\& endSecond > -1 {#
