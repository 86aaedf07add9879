package netfault_test

import (
	"errors"
	"net"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/testing/netfault"
)

// A killed listener's blocked Accept returns a permanent error; an address nobody listens on is
// an error.
func TestKillListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Close()
		}
		accepted <- err
	}()
	if err := netfault.KillListener(ln.Addr().String()); errors.Is(err, netfault.ErrUnsupported) {
		t.Skip(err)
	} else if err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-accepted:
		var te interface{ Temporary() bool }
		if err == nil || (errors.As(err, &te) && te.Temporary()) {
			t.Fatalf("Accept after the kill: %v, want a permanent error", err)
		}
	case <-time.After(time.Minute): // only so a broken kill fails instead of hanging
		t.Fatal("Accept still blocked a minute after the listener was killed")
	}
	if err := netfault.KillListener("127.0.0.1:1"); err == nil {
		t.Fatal("killing a listener that does not exist succeeded")
	}
}
