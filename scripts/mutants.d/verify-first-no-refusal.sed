# drive/run --verify measures a target that is not conformant without --verify-force
# kill: ./cmd/tradebench TestDriveVerifyFirst
# file: cmd/tradebench/verify.go
# expect: with a 500 on a negative quantity: exit
s#^	if !vf.force {#	if false \&\& !vf.force {#
