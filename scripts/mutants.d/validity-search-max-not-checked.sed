# run rules: capacity_search "not checked" when the search stops at its maximum without a knee (nothing measured twice)
# kill: ./report TestSearchAtItsMaximumPasses
# file: report/validity.go
s#if p.Knee \&\& !checked {#if !checked {#
