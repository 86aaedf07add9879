# a fault window counts no errors in the second after it ends (no slack for requests in flight)
# kill: ./report TestFaultWindowsJudgeTheirErrorsApart
# file: report/faults.go
s#lo, hi := f.StartS-FaultSlack.Seconds(), f.EndS+FaultSlack.Seconds()#lo, hi := f.StartS, f.EndS#
