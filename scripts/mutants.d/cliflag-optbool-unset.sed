# flags: an OptBool given on the command line does not know it was given
# kill: ./internal/cliflag TestOptBoolAndKV
# file: internal/cliflag/values.go
# expect: want keep given
s#^\tb.V, b.IsSet = v, true$#\tb.V, b.IsSet = v, false#
