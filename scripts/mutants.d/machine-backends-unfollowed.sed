# machine: the watch does not follow the found server's connections at its readings: a services host or database process it connected to after the drive looked counts as other processes'
# kill: ./driver/machine TestBackendOfTheFoundServerIsOwn
# file: driver/machine/machine.go
# expect: is not among the own processes
s#	if len(w.found) > 0 {#	if false \&\& len(w.found) > 0 {#
