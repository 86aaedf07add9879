# drive: --peak-ramp-up not mapped to the search's step ramp-up (0s and 2s both became the default)
# kill: ./cmd/tradebench TestPeakRampUpZero
# file: cmd/tradebench/drive.go
s#StepRampUp: &f.peakRampUp, ##
