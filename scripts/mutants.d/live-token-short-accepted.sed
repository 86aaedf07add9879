# the live views accept a token too short to be access control
# kill: ./driver TestReadLiveToken
# file: driver/livetoken.go
# expect: a short token
s#if len(t) < MinLiveTokenLen {#if len(t) < 0 {#
