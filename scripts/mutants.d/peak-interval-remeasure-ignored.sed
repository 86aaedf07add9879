# peak: the capacity's interval ignores the search's own re-measurements spreading more than the spread given
# kill: ./driver/peak TestIntervalUsesTheRemeasuredSpread
# file: report/capacity.go
s#if x > 0 && remeasuredSD > run {#if false {#
