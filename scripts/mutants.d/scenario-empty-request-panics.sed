# a scenario's empty "request:" step reaches the compiler as a nil request (a panic, found by fuzzing)
# kill: ./driver/scenario TestEmptyRequestRefused
# file: driver/scenario/steps.go
# expect: panic|request: is empty
s#^\tif r.Request == nil { // "request:" with nothing after it#\tif false {#
