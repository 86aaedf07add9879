# report compare prints a results file's label raw on the terminal
# kill: ./cmd/tradebench TestUntrustedResultsReachTerminalAndCSVEscaped
# file: report/publish/render.go
# expect: control character
s#logsafe.Terminal(runs\[i\].Label)#runs[i].Label#
