# machine: an own process (the driver, a server found by its port or named) is also added to the other processes' groups: it shows among the busiest others
# kill: ./driver/machine TestMeasure|TestServerFoundByPortIsOwn
# file: driver/machine/machine.go
# expect: busiest
s#m.Own = append(m.Own, report.MachineProcess{Name: end.Name, PID: pid, Cores: round(cores(used), 3), Listen: f.Addr, From: f.From, Role: f.Role})#&; others.add(end.Name, pid, cores(used))#
