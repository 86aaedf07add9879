# the run's summary prints names, labels and a target's error examples raw on the terminal
# kill: ./report FuzzDecode
# file: report/summary.go
# expect: terminal control
s#^\tw = logsafe.TerminalWriter(w)$#\t_ = logsafe.TerminalWriter#
