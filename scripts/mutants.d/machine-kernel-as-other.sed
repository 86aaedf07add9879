# machine: the kernel's work (its threads, interrupts and softirqs) counted as other processes' again
# kill: ./driver/machine TestMeasure
# file: driver/machine/machine.go
# expect: machine &
s#m.OtherCores = round(max(m.BusyCores-ownCores-kernel, 0), 3)#m.OtherCores = round(max(m.BusyCores-ownCores, 0), 3)#
