# capacity search: a step where nothing completed (and nothing failed) counts as good
# kill: ./driver/peak TestNothingCompletedIsNeverGood
# file: driver/peak/measure.go
# expect: want no peak and an error
s#er > s.cfg.MaxErrorRate || res.Total.Pass == 0#er > s.cfg.MaxErrorRate#
