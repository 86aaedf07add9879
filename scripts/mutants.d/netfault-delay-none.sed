# the network fault's delay holds no byte: the proxy forwards at once
# kill: ./internal/testing/netfault TestProxyDelay
# file: internal/testing/netfault/proxy.go
# expect: arrived after|took
s#ch <- chunk{b\[:n\], time.Now().Add(d)}#ch <- chunk{b[:n], time.Now().Add(0*d)}#
