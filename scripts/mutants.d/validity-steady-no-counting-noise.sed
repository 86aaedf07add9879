# run rules: the steady-state bound without its counting-noise allowance (2/√n)
# kill: ./report TestSteadyStateAllowsCountingNoise
# file: report/validity.go
# expect: with counting noise
s#r.Bound += 2 / math.Sqrt(perBin)#r.Bound += 0 / math.Sqrt(perBin)#
