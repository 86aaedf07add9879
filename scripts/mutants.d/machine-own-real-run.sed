# machine: the measurement's own CPU not subtracted, seen in a real run with busy loops
# kill: ./driver TestBusyMachineIsNotValid
# file: driver/machine/machine.go
# expect: own CPU not subtracted
s#m.OtherCores = round(max(m.BusyCores-ownCores-kernel, 0), 3)#m.OtherCores = round(m.BusyCores, 3)#
