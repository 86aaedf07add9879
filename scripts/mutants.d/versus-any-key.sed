# run --versus takes a KEY without =VALUE (the form is not checked)
# kill: ./cmd/tradebench TestRunVersusUsageErrors
# file: cmd/tradebench/versus.go
# expect: want KEY=VALUE
s#if !ok || key == "" || value == "" {#if key == "" || ok \&\& value == "" {#
