# quick mode: the summary no longer says how many answers were 400 or above
# kill: ./cmd/tradebench TestQuickModeMeasuresWhatTheURLAnswers
# file: report/summary.go
s#if e := r.errorAnswers(); e > 0 {#if e := r.errorAnswers(); e < 0 {#
