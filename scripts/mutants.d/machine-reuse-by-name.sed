# a process whose name changed between the readings is taken for a new one (a renamed kworker's whole life counted in the window)
# kill: ./driver/machine TestMeasure
# file: driver/machine/machine.go
# expect: machine
s#^		if seen \&\& (start.Start != end.Start || start.Start == 0 \&\& start.Name != end.Name) {$#		if seen \&\& start.Name != end.Name {#
