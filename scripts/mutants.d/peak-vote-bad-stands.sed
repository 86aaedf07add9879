# peak: a first bad step around the knee always stands, whatever its re-measurements say
# kill: ./driver/peak TestKneeVoteMovesTheSearch
# file: driver/peak/peak.go
s#majority := goods >= 2$#majority := goods >= 2 \&\& wasGood#
