# wstest configs lists no built-in configuration
# kill: ./bench/wstestjob TestConfigTableAndHeader
# file: bench/wstestjob/config.go
# expect: listing lacks
s#^\t\tb.WriteString("  " + n + "\\n")#\t\t_ = n#
