# CSV cells that start with = + - @ are written as they are (formula injection)
# kill: ./cmd/tradebench TestUntrustedResultsReachTerminalAndCSVEscaped
# file: internal/logsafe/logsafe.go
# expect: formula
s#^\tif s != "" && strings.IndexByte("=+-@\\t\\r", s\[0\]) >= 0 {#\tif false {#
