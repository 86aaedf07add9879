# capacity search: flat measurements (within the bounds, below the efficiency line) left out of the search's throughput
# kill: ./driver/peak TestFlatRemeasureIsTheSearchsThroughput
# file: driver/peak/search.go
# expect: agrees with the search's last measurement
s#func (j judged) within() bool { return j.why == "" || j.flat }#func (j judged) within() bool { return j.why == "" }#
