# verify --out/--junit replace an existing file (or the file a symbolic link points at) without --force
# kill: ./cmd/tradebench TestVerifyCommandEnds
# file: report/publish/verification.go
# expect: without --force
s#err == nil \&\& !fi.IsDir() \&\& !o.Force {#err == nil \&\& !fi.IsDir() \&\& false {#
