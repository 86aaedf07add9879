# haproxy sends every request, POSTs included, through the backend that retries a failed connection on the other tier
# kill: ./cmd/tradebench TestTestbed
# expect: sent a POST again
# file: scripts/testbed
s#^  use_backend web_once if !replayable$#  use_backend web if !replayable#
