# flags: a bare number given to a duration flag is "not a number" instead of the unit it lacks
# kill: ./internal/cliflag TestParseMistakesAreOneLine
# file: internal/cliflag/cliflag.go
# expect: a duration needs a unit
s#^\treturn err == nil \&\& f.DefValue != "0" \&\& strings.ContainsAny(f.DefValue, "hms")$#\treturn err == nil \&\& false#
