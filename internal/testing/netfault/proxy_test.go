package netfault_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/testing/netfault"
)

// echo is a TCP server that writes back every line it reads, stamping when each line arrived.
type echo struct {
	ln       net.Listener
	accepted atomic.Int64
	arrived  chan time.Time
}

func newEcho(t *testing.T) *echo {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := &echo{ln: ln, arrived: make(chan time.Time, 100)}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			e.accepted.Add(1)
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					e.arrived <- time.Now()
					c.Write([]byte(line))
				}
			}()
		}
	}()
	return e
}

func newProxy(t *testing.T, target string) *netfault.Proxy {
	t.Helper()
	p, err := netfault.Listen("127.0.0.1:0", target)
	if err != nil {
		t.Fatal(err)
	}
	go p.Serve()
	t.Cleanup(func() { p.Close() })
	return p
}

// roundTrip sends a line on c and reads the echo.
func roundTrip(c net.Conn, r *bufio.Reader, line string) error {
	if _, err := io.WriteString(c, line+"\n"); err != nil {
		return err
	}
	got, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	if got != line+"\n" {
		return errors.New("echoed " + got)
	}
	return nil
}

func dial(t *testing.T, p *netfault.Proxy) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", p.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(15 * time.Second)) // a broken proxy fails the test, not hangs it
	return c, bufio.NewReader(c)
}

// A cut resets the connections in flight (the client reads ECONNRESET, not a clean end) and
// every new one before it reaches the target; after Heal a new connection is forwarded again.
// Mutant: netfault-cut-keeps-conns (the cut leaves the open connections alone).
func TestProxyCut(t *testing.T) {
	e := newEcho(t)
	p := newProxy(t, e.ln.Addr().String())
	c, r := dial(t, p)
	if err := roundTrip(c, r, "before"); err != nil {
		t.Fatalf("through the proxy before the cut: %v", err)
	}
	p.Cut()
	if _, err := r.ReadString('\n'); !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("a connection open at the cut read %v, want it reset (ECONNRESET)", err)
	}
	before := e.accepted.Load()
	// refused: the dial itself is reset, or the first read is
	if c2, err := net.Dial("tcp", p.Addr().String()); err == nil {
		c2.SetDeadline(time.Now().Add(time.Minute))
		if err := roundTrip(c2, bufio.NewReader(c2), "during"); err == nil {
			t.Fatal("a connection made during the cut was forwarded")
		}
		c2.Close()
	}
	if n := e.accepted.Load(); n != before {
		t.Fatalf("the target accepted %d connections during the cut", n-before)
	}
	p.Heal()
	c3, r3 := dial(t, p)
	if err := roundTrip(c3, r3, "after"); err != nil {
		t.Fatalf("through the proxy after Heal: %v", err)
	}
}

// A delay holds each direction's bytes: a line arrives at the target no sooner than the delay
// after it was sent, and its echo is back no sooner than twice the delay; after Heal bytes pass
// as they come. Only lower bounds are asserted: a busy machine is slower, never faster.
// Mutant: netfault-delay-none (the delay is not applied).
func TestProxyDelay(t *testing.T) {
	e := newEcho(t)
	p := newProxy(t, e.ln.Addr().String())
	c, r := dial(t, p)
	if err := roundTrip(c, r, "warm"); err != nil {
		t.Fatal(err)
	}
	<-e.arrived
	const d = 150 * time.Millisecond
	p.Delay(d)
	sent := time.Now()
	if err := roundTrip(c, r, "slow"); err != nil {
		t.Fatalf("through the delayed proxy: %v", err)
	}
	back := time.Since(sent)
	if arrived := (<-e.arrived).Sub(sent); arrived < d {
		t.Errorf("a byte sent through a %v delay arrived after %v", d, arrived)
	}
	if back < 2*d {
		t.Errorf("a round trip through a %v delay each way took %v, want at least %v", d, back, 2*d)
	}
	p.Heal()
	if err := roundTrip(c, r, "healed"); err != nil {
		t.Fatalf("after Heal: %v", err)
	}
}
