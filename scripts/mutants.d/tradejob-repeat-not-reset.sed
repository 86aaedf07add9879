# run --repeat: the main job's workload does not drain and reset its data set under the running server before a repeat
# kill: ./cmd/tradebench TestRunRepeatResetsBetweenRuns
# file: bench/tradejob/tradejob.go
# expect: no reset between the runs
/^\tif w.srv != nil {$/{
N
s#^\tif w.srv != nil {\n\t\tdrain(#\tif false \&\& w.srv != nil {\n\t\tdrain(#
}
