# the gRPC server does not hand the call's idempotency key to the service
# kill: ./trade/remote TestContract
# file: trade/remote/grpcapi/server.go
# expect: grpc/Idempotent
s#ctx = trade.WithIdempotencyKey(ctx, ks\[0\])#_ = ks#
