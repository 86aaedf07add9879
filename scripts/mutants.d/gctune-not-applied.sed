# tradebench runs at Go's default GC target: pages pay 10-15 % more CPU to the collector
# kill: ./internal/gctune TestApply
# file: internal/gctune/gctune.go
# expect: want 400
s#^\tdebug.SetGCPercent(Percent)$#\tdebug.SetGCPercent(100)#
