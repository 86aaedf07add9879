# flags: wrk's joined spelling -c50 not accepted by the toolkit
# kill: ./internal/cliflag TestJoinedShortFlags
# file: internal/cliflag/cliflag.go
# expect: unknown flag --c50
s#^\targs = joinedShortFlags(fs, args)$##
