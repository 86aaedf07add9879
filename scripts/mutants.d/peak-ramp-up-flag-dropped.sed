# drive: --peak-ramp-up not mapped to the search's step ramp-up (0s and 2s both became the default)
# kill: ./cmd/tradebench TestPeakRampUpZero
# file: cmd/tradebench/drive.go
s#fs.DurationVar(f.pc.StepRampUp, "peak-ramp-up"#fs.DurationVar(new(time.Duration), "peak-ramp-up"#
