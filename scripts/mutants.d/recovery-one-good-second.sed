# one second back within the noise counts as recovered
# kill: ./report TestFaultRecoveryFromTheSeries
# file: report/recovery.go
s#if good >= RecoveryHold \&\&#if good >= 1 \&\&#
