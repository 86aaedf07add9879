# machine: an own process (the driver, a server found by its port or named) is also added to the other processes' groups: it shows among the busiest others
# kill: ./driver/machine TestMeasure|TestServerFoundByPortIsOwn
# file: driver/machine/machine.go
# expect: busiest
s#^\t\t\tp.AtOnce = atOnce\[groupKey{f.Name, f.Addr, f.Role, f.From}\]$#&; others.add(end.Name, pid, cores(used))#
