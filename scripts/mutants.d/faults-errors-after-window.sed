# a fault window counts the errors after it ends, to the end of the run
# kill: ./report TestFaultRecoveryFromTheSeries
# file: report/faults.go
s#lo, hi := f.StartS-FaultSlack.Seconds(), f.EndS+FaultSlack.Seconds()$#lo, hi := f.StartS-FaultSlack.Seconds(), math.Inf(1)#
