# serve's embedded broker on a fixed port writes no token file for the processes that join it
# kill: ./trade/server TestNATSTokenFileOfAFixedBroker
# file: trade/server/token.go
# expect: no token file for the processes that join the broker
s/^\tshare := o.NATS == ""/\tshare := false \&\& o.NATS == ""/
