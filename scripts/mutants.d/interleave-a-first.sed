# the interleaved A/B order always runs A first in each pair (not randomized per pair)
# kill: ./driver TestInterleaveOrderRandomizedPerPair
# file: driver/interleave.go
# expect: both orders must appear
s#if rng.IntN(2) == 0 {#if rng.IntN(2) >= 0 {#
