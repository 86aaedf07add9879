# a passed test's log is kept and printed with its package's failure, as if it had failed too: the failure drowns in it
# kill: ./scripts/testtime TestPlainOutput
# file: scripts/testtime/main.go
s#^\t\tt.action, t.output = e.Action, nil$#\t\tt.action = e.Action#
