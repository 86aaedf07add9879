# flags: wrk's joined spelling -c50 not accepted ("unknown flag -c50")
# kill: ./cmd/tradebench TestQuickModeSpellings
# file: cmd/tradebench/cli.go
s#^\targs = joinedShortFlags(fs, args)$##
