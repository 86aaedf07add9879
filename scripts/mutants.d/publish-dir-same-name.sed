# results: a second run in the same second takes the first run's file in the work directory
# kill: ./report/publish TestDirKeepsEveryRun
# file: report/publish/publish.go
# expect: exists|the runs. files
s#^\tif _, err := os.Stat(p); err == nil {$#\tif false {#
