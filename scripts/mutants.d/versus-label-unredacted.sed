# drive --versus target=URL keeps the URL's password in B's label (results, reports, compare page, A/B lines)
# kill: ./cmd/tradebench TestDriveVersusTargets
# file: cmd/tradebench/versus.go
# expect: password
s#key + "=" + dsn.Redact(b)}#key + "=" + b}#
