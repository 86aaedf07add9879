# a kept body of known length is read by doubling copies, not into one buffer of its size
# kill: ./driver/vuser TestBodyBudgetIsWhatBodiesCost
# file: internal/httpc/httpc.go
# expect: peak RSS
s#^\t\t\tif req.KeepBody \&\& length > int64(cap(\*c.body)) {#\t\t\tif false {#
