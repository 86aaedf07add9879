# --versus ends without each side's verdict and where its results and reports went
# kill: ./cmd/tradebench TestRunVersusEndToEnd
# file: cmd/tradebench/versus.go
# expect: the A/B ending lacks
s/^\twriteVersusSides(os.Stdout, labels, \[2\]\*report.Results{a, b}, paths, !pub.NoReport)$/\t_ = writeVersusSides/
