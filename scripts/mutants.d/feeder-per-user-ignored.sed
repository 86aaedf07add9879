# --data-per-user is ignored: the rows go round-robin, and 2 users send a third row
# kill: ./cmd/tradebench TestQuickModeDataFeeder
# file: driver/scenario/feed.go
# expect: sent row 3
s#^\tif f.PerUser {#\tif false {#
