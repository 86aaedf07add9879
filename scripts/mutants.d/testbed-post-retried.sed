# haproxy sends every request, POSTs included, through the backend that retries a failed connection on the other tier
# kill: ./cmd/tradebench TestTestbed
# file: scripts/testbed
s#^  use_backend web_once if !replayable$#  use_backend web if !replayable#
