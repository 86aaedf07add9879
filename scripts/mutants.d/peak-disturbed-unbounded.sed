# peak: disturbed steps measured again without a search-wide bound (a busy machine triples the search)
# kill: ./driver/peak TestBusyThroughoutBoundsTheRemeasuring
# file: driver/peak/peak.go
s#if s.disturbed >= MaxDisturbedSearch {#if false \&\& s.disturbed >= MaxDisturbedSearch {#
