# repeats: a percentile over the runs shown whatever the runs' samples
# kill: ./driver TestRepeatedCapacitySearch
# file: report/repeats.go
s#if !r.RepeatsHaveSamples(m) {#if false {#
