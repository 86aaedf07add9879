# the cacheperf server's start-up line leaves out its URL
# kill: ./cacheperf TestStartLogsWhereItServes
# file: cacheperf/app.go
# expect: lacks "url=
s#attrs := \[\]any{"url", s.URL + "/cacheperf/", #attrs := []any{#
