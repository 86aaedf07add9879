# peak: a step measuring less than a lower load believed without a second measurement
# kill: ./driver/peak TestNonMonotonicStepIsRemeasured
# file: driver/peak/measure.go
s#if p.load < load \&\& p.res.Total.TPS > res.Total.TPS \&\& differ(p.res, res) {#if false {#
