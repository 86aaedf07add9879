# the driver sends no Idempotency-Key: a load balancer's retry of its buy places a second order
# kill: ./driver/vuser TestIdempotencyKeyPerUnsafeRequest
# file: driver/vuser/request.go
# expect: empty or seen before
s#^\ts.header = u.idempotencyKey(s.header, r)$##
