// Package tradepb is the generated protobuf and gRPC code of trade.proto, the trade business
// services' binary wire contract (money as int64 cents, times as Timestamps). Do not edit the
// .pb.go files: change trade.proto and regenerate with the command at its top (protoc from
// Debian's protobuf-compiler, protoc-gen-go v1.36.12, protoc-gen-go-grpc v1.5.1).
package tradepb
