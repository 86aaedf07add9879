# peak: one good vote of three taken as the majority around the knee
# kill: ./driver/peak TestKneeVoteStands
# file: driver/peak/knee.go
s#majority := goods > len(votes)/2$#majority := goods >= 1#
