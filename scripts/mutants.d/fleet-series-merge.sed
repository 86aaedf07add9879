# fleet: a tick's histogram not merged into its second
# kill: ./driver/fleet TestSeriesMergesAgentsTicks
# file: driver/fleet/controller.go
/^\s*s.agents++$/,/^\s*}$/s#^\(\s*\)s.hist.Merge(h)$#\1_ = h#
