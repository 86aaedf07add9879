# a job's entry that does not run its workload through driver.Drive (it measures some other way) passes the job shape
# kill: ./internal/layering TestJobShape
# file: bench/xmlmarkjob/xmlmarkjob.go
# expect: Run does not call driver.Drive
s#^\treturn driver.Drive(ctx, d, \&c)$#\t_ = d\n\treturn nil, nil#
