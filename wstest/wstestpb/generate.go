// Package wstestpb is the generated gRPC code for WSTest (see wstest.proto). The generated
// files are committed; regenerate after editing the .proto with `go generate ./wstest/wstestpb/`.
package wstestpb

//go:generate protoc -I . --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative wstest.proto
