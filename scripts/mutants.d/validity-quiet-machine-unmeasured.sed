# run rules: the machine rule takes a machine where other processes took nothing (0 %) for one not measured: a quiet machine's rule says "the machine's CPU was not measured (no /proc)"
# kill: ./report TestQuietMachineAndBusiestAgent
# file: report/validity.go
# expect: a quiet machine
s#	if worst < 0 {#	if worst <= 0 {#
