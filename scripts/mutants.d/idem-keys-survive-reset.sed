# Reset keeps the run's request keys: a key of an order Reset removed still answers it
# kill: ./trade/business TestKeyedRequestRacingItsTwin
# file: trade/store/sqlstore/writes.go
# expect: after Reset
s#^\t\tstmt{s.deleteKeys, nil},$##
