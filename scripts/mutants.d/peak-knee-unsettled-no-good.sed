# peak: the knee's move limit checked before a missing last good step (a third move leaving no good load went on to confirm a peak below none, and panicked)
# kill: ./driver/peak TestKneeOverturnedToNothingGood
# file: driver/peak/search.go
# expect: nil pointer dereference
/case checkingKnee:/,/return growing/s#		case s.good == nil:#		case s.good == nil \&\& len(s.moves) < policy.kneeMoves:#
