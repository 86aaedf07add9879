# the errors rule counts the errors inside fault windows as if no fault had been injected
# kill: ./report TestFaultWindowsJudgeTheirErrorsApart
# file: report/validity.go
s#	if n := res.FaultErrors(); n > 0 {#	if n := res.FaultErrors(); false \&\& n > 0 {#
