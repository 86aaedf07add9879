# web: a stream ignores its subscriber being dropped
# kill: ./trade/web TestStreamEndsWhenDropped
# file: trade/web/stream.go
s#case <-sub.Gone():#case <-(chan struct{})(nil):#
