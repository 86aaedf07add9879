# capacity interval: a run-to-run spread of 4 % assumed, half the reference machine's measured 8 %
# kill: ./report TestIntervalCoversTheRecordedRuns
# file: report/capacity.go
# expect: want at least 9 in 10
s#^const DefaultRunSpread = 0.08#const DefaultRunSpread = 0.04#
