# --think: the flag's value parses but is not stored (the workload keeps its own think time)
# kill: ./driver/scenario TestThinkValue
# file: driver/scenario/think.go
# expect: Set\(fixed:1s\)
s#^\t\*v.T = \&t$#\t_ = t#
