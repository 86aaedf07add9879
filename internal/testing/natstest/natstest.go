// Package natstest starts the real embedded NATS server (natsx) for tests, with a known token,
// and connects to it.
package natstest

import (
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/tradebench/tradebench/internal/natsx"
)

// Token is the tests' brokers' token.
const Token = "natstest-token-0123456789abcdef"

// Start starts an embedded server on a free port of 127.0.0.1 requiring Token, with JetStream
// storing under dir ("" = core NATS only); it stops at the test's end.
func Start(t testing.TB, dir string) *natsx.Server {
	t.Helper()
	s, err := natsx.Start(natsx.ServerConfig{Name: "natstest", Addr: "127.0.0.1:0", Token: Token, JetStreamDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	return s
}

// Connect connects to url with Token; the connection closes at the test's end.
func Connect(t testing.TB, url string) *nats.Conn {
	t.Helper()
	nc, err := natsx.Connect(url, natsx.ConnectConfig{Name: t.Name(), Token: Token})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}
