# peak: the knee may move on re-measurement without bound (never "did not settle")
# kill: ./driver/peak TestKneeThatDoesNotSettle
# file: driver/peak/search.go
s#len(s.moves) >= policy.kneeMoves#false \&\& len(s.moves) >= policy.kneeMoves#
