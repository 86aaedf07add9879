# haproxy neither retries nor redispatches a refused connection (a request sent to a killed tier
# before its health check saw it fails, beyond the requests in flight)
# kill: ./cmd/tradebench TestTestbed
# file: scripts/testbed
s#^  retries 3$#  retries 0#
s#^  option redispatch$#  no option redispatch#
