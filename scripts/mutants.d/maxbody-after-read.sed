# a kept body's bound is the default 64 MiB, not the request's own (the preflight's 1 MiB)
# kill: ./internal/httpc TestKeptBodyBoundAppliedWhileReading
# file: internal/httpc/response.go
# expect: 1 MiB bound
s#^\tmaxBody := req.MaxBody$#\tmaxBody := int64(0)#
