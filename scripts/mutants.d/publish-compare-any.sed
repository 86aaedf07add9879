# report compare puts runs of different workloads side by side without Force
# kill: ./report/publish TestCompareAndRender
# file: report/publish/render.go
# expect: a run and a sweep compared
s#^\t\tif i > 0 \&\& !c.Force {$#\t\tif false {#
