# a scenario's empty "request:" step reaches the compiler as a nil request (a panic, found by fuzzing)
# kill: ./driver/scenario TestEmptyRequestRefused
# file: driver/scenario/scenario.go
# expect: panic|request: is empty
s#^\t\t\tif r.Request == nil { // "request:" with nothing after it#\t\t\tif false {#
