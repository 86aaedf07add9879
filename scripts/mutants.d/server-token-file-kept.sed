# a refused server.Start keeps the token files it wrote
# kill: ./trade/server TestNATSTokenFileOfAFixedBroker
# file: trade/server/server.go
# expect: a refused start left tradebench-nats-token behind
s/^\t\tif srv == nil {$/\t\tif false \&\& srv == nil {/
