# machine: the most of a group of followed processes serving at once left out of the results: the summary counts the backends that took turns ("postgres ×2") where the pool held one
# kill: ./driver/machine TestFollowedCountedAtOnce
# file: driver/machine/machine.go
# expect: want one starting
s#^\t\t\tp.AtOnce = atOnce\[groupKey{f.Name, f.Addr, f.Role, f.From}\]$#\t\t\t_ = atOnce#
