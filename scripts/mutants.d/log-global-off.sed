# the error log is limited per client address only
# kill: ./internal/logsafe TestGlobalLogLimit
# file: internal/logsafe/logsafe.go
# expect: wrote
s#^\tif g.tokens < 1 {#\tif false \&\& g.tokens < 1 {#
