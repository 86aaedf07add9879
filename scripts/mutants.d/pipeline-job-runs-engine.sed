# a job runs the load engine itself instead of through driver.Drive (skipping the pipeline)
# kill: ./internal/layering TestOnePipeline
# file: bench/xmlmarkjob/xmlmarkjob.go
# expect: uses driver/load.Run
s#^\treturn \&driver.Run{Name: "xmlmark "#\t_ = load.Run\n\treturn \&driver.Run{Name: "xmlmark "#
