# peak: a second measurement around the knee that disagrees with the first taken as agreeing (no third vote)
# kill: ./driver/peak TestKneeVoteStands|TestKneeVoteMovesTheSearch
# file: driver/peak/knee.go
s#if (why == "") == wasGood || !differ(first.res, res) {#if true {#
