# run --versus does not label each side's trials by its setting
# kill: ./cmd/tradebench TestRunVersusEndToEnd
# file: cmd/tradebench/versus.go
# expect: label
s#c.Repeat, c.Label = 1, labels\[k\]#c.Repeat = 1#
