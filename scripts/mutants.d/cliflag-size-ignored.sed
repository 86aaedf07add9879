# flags: a byte size flag parses its value but keeps its default
# kill: ./internal/cliflag TestSize
# file: internal/cliflag/values.go
# expect: --size 500KB
s#^\ts.N = n$#\t_ = n#
