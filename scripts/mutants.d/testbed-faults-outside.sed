# the faults rule passes whatever errors lie outside the fault windows
# kill: ./report TestFaultWindowsJudgeTheirErrorsApart
# file: report/faults.go
s#	if out > 0 {#	if false \&\& out > 0 {#
