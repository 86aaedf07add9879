# GOGC 400 without the soft memory limit: a driver's heap may grow to five times its live data, unbounded by the machine
# kill: ./internal/gctune TestApply
# file: internal/gctune/gctune.go
# expect: memory limit
s#^\t\t\tdebug.SetMemoryLimit(m / 4)$#\t\t\t_ = m#
