# a capacity search's re-measurement does not say which step it measures again (progress shows "grow 4 (400 users)" as if the search were stuck)
# kill: ./driver/peak TestDisturbedStepIsMeasuredAgain
# file: driver/peak/measure.go
# expect: want the fourth to re-measure step 3
s/^\t\t\tst.Of = prev.Step$/\t\t\t_ = prev.Step/
