# the wstest server's start-up line leaves out the gRPC address
# kill: ./wstest/wsserver TestStartLogsWhereItListens
# file: wstest/wsserver/server.go
# expect: lacks "grpc=
s#attrs = append(attrs, "grpc", r.GRPCAddr.String())#_ = attrs#
