# a kept body of known length is read by doubling copies, not into one buffer of its size
# kill: ./driver/vuser TestBodyBudgetIsWhatBodiesCost
# file: internal/httpc/response.go
# expect: peak RSS
s#^\tif keepBody \&\& length > int64(cap(\*c.body)) {#\tif false {#
