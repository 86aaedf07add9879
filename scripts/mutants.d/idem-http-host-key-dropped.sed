# the services host does not read the Idempotency-Key header of SOAP and REST calls
# kill: ./trade/remote TestContract
# file: trade/remote/host/host.go
# expect: (soap|rest)/Idempotent
s#r = r.WithContext(trade.WithIdempotencyKey(r.Context(), k))#_ = k#
