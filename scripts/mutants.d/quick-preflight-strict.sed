# quick mode: the preflight refuses an HTTP answer of 400 or above (a URL answering 401 exits 2)
# kill: ./cmd/tradebench TestQuickModeMeasuresWhatTheURLAnswers
# file: driver/preflight.go
s#if err == nil || p.quick \&\& answered(err) {#if err == nil {#
