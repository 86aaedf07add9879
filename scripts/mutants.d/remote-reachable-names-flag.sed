# remote.Reachable's refused-token error names the command line's flag instead of the client's token file
# kill: ./trade/remote TestReachableUnauthorized
# file: trade/remote/reachable.go
# expect: unauthorized
s#or its token file)#or --service-token-file)#
