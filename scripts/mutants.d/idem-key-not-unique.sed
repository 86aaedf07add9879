# the request key is not unique in the store: two transactions place two orders under one key
# kill: ./trade/business TestKeyedRequestRacingItsTwin
# file: trade/store/sqlstore/requestkeys.go
# expect: placed|whose look-up missed|concurrent
s#(idemkey TEXT PRIMARY KEY, kind#(idemkey TEXT NOT NULL, kind#
