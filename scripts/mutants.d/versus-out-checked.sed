# run/drive --versus refuses an existing --out file, though it writes only OUT-A.json, OUT-B.json and OUT-compare.html
# kill: ./cmd/tradebench TestRunVersusEndToEnd
# file: cmd/tradebench/pipeline.go
# expect: exists
s#^\tif f.versus {$#\tif false {#
