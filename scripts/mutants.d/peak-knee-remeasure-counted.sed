# peak: the knee's re-measurements counted against the step limit (a moving knee runs out of steps)
# kill: ./driver/peak TestKneeRemeasurementsOutsideTheStepLimit
# file: driver/peak/peak.go
/res, err := s.measure(ctx, PhaseRemeasure, p.load)/,/s.extra++/{/s.extra++/d}
