# peak: one good vote of three taken as the majority around the knee
# kill: ./driver/peak TestKneeVoteStands
# file: driver/peak/peak.go
s#majority := goods >= 2$#majority := goods >= 1#
