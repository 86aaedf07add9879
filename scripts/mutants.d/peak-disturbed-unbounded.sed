# peak: disturbed steps measured again without a search-wide bound (a busy machine triples the search)
# kill: ./driver/peak TestBusyThroughoutBoundsTheRemeasuring
# file: driver/peak/measure.go
s#if s.disturbed >= policy.disturbedSearch {#if false \&\& s.disturbed >= policy.disturbedSearch {#
