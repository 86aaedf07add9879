package natsx

import (
	"testing"
)

// TestDialStartsOrConnects: with no URL, Dial starts an embedded server that requires a token
// (a random one when none is given) and connects to it; with a URL it joins that server and
// starts none; Close stops what it started. A connection without the token is refused.
// Mutants: natsx-dial-always-embedded (Dial ignores URL and starts a server of its own) → "joined
// ... but started a server"; natsx-close-leaves-server (Close does not stop the embedded
// server) → "still takes connections after Close".
func TestDialStartsOrConnects(t *testing.T) {
	first, err := Dial(BrokerConfig{ConnName: "first", Server: ServerConfig{Name: "t", Addr: "127.0.0.1:0"}})
	if err != nil {
		t.Fatal(err)
	}
	if first.Embedded == nil || ValidateToken(first.Token) != nil || !first.Conn.IsConnected() {
		t.Fatalf("no embedded server, or no token of its own (%q)", first.Token)
	}
	if nc, err := Connect(first.URL, ConnectConfig{Name: "stranger"}); err == nil {
		nc.Close()
		t.Fatal("a connection without the token was taken")
	}
	second, err := Dial(BrokerConfig{URL: first.URL, Token: first.Token, ConnName: "second", Server: ServerConfig{Name: "t2", Addr: "127.0.0.1:0"}})
	if err != nil {
		t.Fatal(err)
	}
	if second.Embedded != nil || second.URL != first.URL {
		t.Fatalf("joined %s with URL %s but started a server (%v)", first.URL, second.URL, second.Embedded != nil)
	}
	second.Close()
	url, token := first.URL, first.Token
	first.Close()
	if nc, err := Connect(url, ConnectConfig{Name: "late", Token: token}); err == nil {
		nc.Close()
		t.Fatal("the embedded server still takes connections after Close")
	}
	if _, err := Dial(BrokerConfig{Server: ServerConfig{Addr: "nowhere"}}); err == nil {
		t.Fatal("an embedded server on address \"nowhere\" started")
	}
}
