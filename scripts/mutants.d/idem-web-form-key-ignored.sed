# the web tier ignores the key its page rendered into the form: a buy form sent twice places two orders
# kill: ./trade/web TestPagesSQLite
# file: trade/web/web.go
# expect: sent twice with its key
s#^\tk := q.r.Form.Get(trade.IdempotencyField)$#\tk := ""#
