# a target that does not answer is verified anyway: a mistyped port reads as "not conformant, level 0 of 4", exit 7
# kill: ./cmd/tradebench TestVerifyCommandEnds
# file: bench/verify/verify.go
# expect: verify a dead port
s#if err := v.reachable(); err != nil {#if err := v.reachable(); false \&\& err != nil {#
