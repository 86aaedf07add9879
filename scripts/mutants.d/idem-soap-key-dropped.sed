# the SOAP client does not send the call's idempotency key: a replayed buy places a second order
# kill: ./trade/remote TestContract
# file: trade/remote/soap/client.go
# expect: soap/Idempotent
s#^\tif k := trade.IdempotencyKeyOf(ctx); k != "" {$#\tif k := trade.IdempotencyKeyOf(ctx); k != "" \&\& false {#
