# report compare prints a results file's label and verdict raw on the terminal
# kill: ./cmd/tradebench TestUntrustedResultsReachTerminalAndCSVEscaped
# file: cmd/tradebench/report.go
# expect: control character
s#logsafe.Terminal(runs\[i\].Label), logsafe.Terminal(res.Validity.VerdictLine())#runs[i].Label, res.Validity.VerdictLine()#
