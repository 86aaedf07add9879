# the web tier ignores the Idempotency-Key header a client sends: the driver's retried buy places twice
# kill: ./trade/web TestPagesSQLite
# file: trade/web/web.go
# expect: one Idempotency-Key
s#^\t\tk = q.r.Header.Get(trade.IdempotencyHeader)$#\t\tk = ""#
