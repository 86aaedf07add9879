# peak: the knee may move on re-measurement without bound (never "did not settle")
# kill: ./driver/peak TestKneeThatDoesNotSettle
# file: driver/peak/peak.go
s#moves >= MaxKneeMoves#false \&\& moves >= MaxKneeMoves#
