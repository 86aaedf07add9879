# a fault's recovery time is measured from the window's end, not its start
# kill: ./report TestFaultRecoveryFromTheSeries
# file: report/recovery.go
s#max(0, back-f.StartS)#max(0, back-f.EndS)#
