# peak: a step other processes disturbed believed without measuring it again
# kill: ./driver/peak TestDisturbedStepIsMeasuredAgain
# file: driver/peak/measure.go
s#if !ok || share <= s.cfg.MaxOtherShare {#if !ok || share <= s.cfg.MaxOtherShare || true {#
