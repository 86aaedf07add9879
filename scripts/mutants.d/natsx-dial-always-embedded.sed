# natsx.Dial ignores the URL given and starts an embedded server of its own
# kill: ./internal/natsx TestDialStartsOrConnects
# file: internal/natsx/broker.go
# expect: but started a server
s/^\tif c.URL == "" {$/\tif true {/
