# run rules: other_processes ignoring each agent's own machine in a distributed run
# kill: ./report TestOtherProcessesRule
# file: report/validity.go
# expect: agents:
s#ws = append(ws, window{"agent " + a.Name + "'s machine", a.Machine})#_ = a#
