// Package servetest checks, over real TCP, that a server built by httpserve cuts clients that
// hold a connection open by sending slowly. Tests of every server the kit starts use it.
package servetest

import (
	"bufio"
	"fmt"
	"net"
	"testing"
	"time"
)

// CheckSlowBodyCut sends a POST to addr's path whose body trickles in one byte every 50 ms
// and fails t unless the server closes the connection within `within`: a server without a
// body-read timeout keeps it open as long as the client keeps sending.
func CheckSlowBodyCut(t testing.TB, addr, path string, within time.Duration) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	if _, err := fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\n", path, addr); err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() {
		// The server may answer (e.g. 408 or a page) before it closes; read to the end.
		br := bufio.NewReader(c)
		for {
			c.SetReadDeadline(time.Now().Add(within + 5*time.Second))
			if _, err := br.ReadByte(); err != nil {
				close(closed)
				return
			}
		}
	}()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(within)
	for {
		select {
		case <-closed:
			return
		case <-deadline:
			select {
			case <-closed:
				return
			case <-time.After(time.Second):
			}
			t.Fatalf("%s%s: still open %v after the body started trickling in; want the server to cut it", addr, path, time.Since(start).Round(time.Millisecond))
		case <-tick.C:
			if _, err := c.Write([]byte("a")); err != nil {
				return // the server closed the connection
			}
		}
	}
}
