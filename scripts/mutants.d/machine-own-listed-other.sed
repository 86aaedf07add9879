# machine: an own process (the driver, a server found by its port or named) is also added to the other processes' groups: it shows among the busiest others
# kill: ./driver/machine TestServerFoundByPortIsOwn
# file: driver/machine/machine.go
# expect: among the busiest others
s#m.Own = append(m.Own, report.MachineProcess{Name: end.Name, PID: pid, Cores: round(cores(used), 3), Listen: found\[pid\].Listen, From: found\[pid\].From})#&; others.add(end.Name, pid, cores(used))#
