# peak: a disturbed step measured again once only
# kill: ./driver/peak TestStepDisturbedEveryTime
# file: driver/peak/peak.go
s#if len(shares) > MaxDisturbed {#if len(shares) > 1 {#
