# results: an Output writes again when Write is called a second time (the once guard gone)
# kill: ./report/publish TestWriteOnce
# file: report/publish/publish.go
# expect: a second Write
s#^\tif o.written {$#\tif false {#
