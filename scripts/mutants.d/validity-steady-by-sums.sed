# run rules: the steady-state parts compared by their sums, not their rates (a flat run cut into unequal parts varies)
# kill: ./report TestSteadyPartsComparedByRates
# file: report/validity.go
s#sums\[i\] /= counts\[i\]#sums[i] /= 1#
