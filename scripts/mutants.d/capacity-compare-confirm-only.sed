# report compare: capacities compared by their confirming runs' noise, not their intervals
# kill: ./report TestCompareCapacity
# file: report/capacity.go
# expect: the same build
s#		return p.Interval.SD#		return p.PeakTPSHalf / secondRunZ#
