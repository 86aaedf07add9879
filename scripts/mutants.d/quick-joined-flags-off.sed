# flags: wrk's joined spelling -c50 not accepted ("unknown flag -c50")
# kill: ./cmd/tradebench TestQuickModeSpellings
# file: internal/cliflag/cliflag.go
s#^\targs = joinedShortFlags(fs, args)$##
