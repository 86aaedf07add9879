# peak: the knee's re-measurements counted against the step limit (a moving knee runs out of steps)
# kill: ./driver/peak TestKneeRemeasurementsOutsideTheStepLimit
# file: driver/peak/knee.go
/res, err := s.measure(ctx, PhaseRemeasure, load)/,/s.extra++/{/s.extra++/d}
