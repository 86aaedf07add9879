# run rules: the server's CPU averaged from t > 0 (the ramp-up included)
# kill: ./report TestSUTCPUExcludesRampUp
# file: report/validity.go
# expect: want 1.8
s#from := res.Phases.RampUpSeconds#from := 0 * res.Phases.RampUpSeconds#
