# the live views accept a token too short to be access control
# kill: ./driver/live TestReadToken
# file: driver/live/token.go
# expect: a short token
s#if len(t) < MinTokenLen {#if len(t) < 0 {#
