# the verification keeps the target URL as given: its password and token reach verify --out's JSON
# kill: ./cmd/tradebench TestVerifyCommandEnds
# file: bench/verify/verify.go
# expect: holds the target's credentials
s#report.NewVerification(dsn.Redact(cfg.Target))#report.NewVerification(cfg.Target)#
