# the network fault's cut leaves the connections in flight alone: only new ones are refused
# kill: ./internal/testing/netfault TestProxyCut
# file: internal/testing/netfault/proxy.go
# expect: want it reset
s#		reset(c)$#		_ = c#
