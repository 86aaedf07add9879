# report compare: no capacity row on the terminal (the comparison's capacities only in its HTML)
# kill: ./report/publish TestCompareTerminalCapacityRow
# file: report/publish/render.go
s#^	writeCapacities(log, runs)#	_ = writeCapacities#
