# throughput that never came back is reported recovered
# kill: ./report TestFaultNotRecovered
# file: report/recovery.go
s#^\treturn 0, false$#\treturn 0, true#
