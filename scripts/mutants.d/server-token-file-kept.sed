# a refused server.Start keeps the token files it wrote
# kill: ./trade/server TestNATSTokenFileOfAFixedBroker
# file: trade/server/server.go
# expect: a refused start left tradebench-nats-token behind
s/^\t\t\t\tos.Remove(f) \/\/ a refused start/\t\t\t\t_ = f \/\/ a refused start/
