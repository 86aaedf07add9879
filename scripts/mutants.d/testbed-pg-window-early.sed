# crash pg's window ends when the restart was asked for, not when the database and the services host's reads are back
# kill: ./cmd/tradebench TestTestbed
# file: scripts/testbed
# expect: must be back|rule faults|rule errors|outside
s#-m immediate -w -t 120 restart#-m immediate -W restart#
s#  app_recovered "$pgbin" || exit 1#  :#
