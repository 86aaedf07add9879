# a keyed request that failed because its twin committed first answers the failure, not the twin's outcome (a replayed sell: "no holding")
# kill: ./trade/business TestKeyedRequestRacingItsTwin
# file: trade/business/idempotency.go
# expect: duplicate key|whose look-up missed
s#^\tcase found \&\& rerr == nil:$#\tcase found \&\& rerr == nil \&\& false:#
