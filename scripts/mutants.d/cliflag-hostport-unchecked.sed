# flags: a listen address flag (--metrics-listen) takes anything, to fail only when the server starts
# kill: ./internal/cliflag TestHostPort
# file: internal/cliflag/lists.go
# expect: --metrics-listen "9465": <nil>
s#^\tif s != "" {$#\tif false {#
