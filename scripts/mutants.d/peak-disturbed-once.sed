# peak: a disturbed step measured again once only
# kill: ./driver/peak TestStepDisturbedEveryTime
# file: driver/peak/measure.go
s#if len(shares) > policy.disturbed {#if len(shares) > 1 {#
