# drive/run --verify measures a target that is not conformant without --verify-force
# kill: ./cmd/tradebench TestDriveVerifyFirst
# file: bench/verify/outputs.go
# expect: with a 500 on a negative quantity: exit
s#^	if !force {#	if false \&\& !force {#
