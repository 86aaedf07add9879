# report: the processes found as the system under test said one line each, not grouped by name: a drive through the test bed prints a line per PostgreSQL backend
# kill: ./report TestSUTFoundGroupedByName
# file: report/sections.go
# expect: want:
s#k := key{p.Name, p.Role, p.Listen, p.From}#k := key{fmt.Sprint(p.Name, p.PID), p.Role, p.Listen, p.From}#
