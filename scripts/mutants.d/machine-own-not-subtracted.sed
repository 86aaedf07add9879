# machine: the measurement's own CPU not subtracted (everything busy counted as other processes)
# kill: ./driver/machine TestMeasure
# file: driver/machine/machine.go
# expect: machine &
s#m.OtherCores = round(max(m.BusyCores-ownCores-kernel, 0), 3)#m.OtherCores = round(m.BusyCores, 3)#
