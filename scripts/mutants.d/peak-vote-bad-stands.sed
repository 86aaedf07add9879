# peak: a first bad step around the knee always stands, whatever its re-measurements say
# kill: ./driver/peak TestKneeVoteMovesTheSearch
# file: driver/peak/knee.go
s#majority := goods > len(votes)/2$#majority := goods > len(votes)/2 \&\& wasGood#
