# peak: a zero step ramp-up (`--peak-ramp-up 0s`) taken as unset and given the 5 s default
# kill: ./driver/peak TestStepRampUpZero
# file: driver/peak/peak.go
s#if c.StepRampUp == nil {#if c.StepRampUp == nil || *c.StepRampUp == 0 {#
