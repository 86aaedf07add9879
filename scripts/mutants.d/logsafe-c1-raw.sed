# C1 controls (U+0080–U+009F: 8-bit CSI, NEL) are not escaped for the terminal
# kill: ./internal/logsafe TestTerminalEscapesC1
# file: internal/logsafe/logsafe.go
# expect: C1
s# || (r >= 0x80 \&\& r < 0xa0)##
