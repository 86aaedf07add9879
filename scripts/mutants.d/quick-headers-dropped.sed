# quick mode: -H headers not put into the request
# kill: ./cmd/tradebench TestQuickModeRequestReachesTheServer
# file: driver/quick.go
s#^\t\treq\["headers"\] = hs#\t\t_ = hs#
