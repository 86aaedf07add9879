# quick mode: an answer of 400 or above fails its transaction (a URL answering 401 is refused by the preflight: exit 2)
# kill: ./cmd/tradebench TestQuickModeMeasuresWhatTheURLAnswers
# file: driver/quick.go
s#^\tsc.Steps\[0\].Request.Check.AnyStatus = true$#\t// AnyStatus not set#
