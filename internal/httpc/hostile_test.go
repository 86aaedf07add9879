package httpc

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
)

// respondingServer answers every request on a loopback listener with the response respond writes.
func respondingServer(t *testing.T, respond func(w *bufio.Writer, n int)) *Endpoint {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		n := 0
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				br, bw := bufio.NewReader(c), bufio.NewWriter(c)
				for {
					for { // the request's head (the tests send no bodies)
						l, err := br.ReadString('\n')
						if err != nil {
							return
						}
						if l == "\r\n" {
							break
						}
					}
					n++
					respond(bw, n)
					if bw.Flush() != nil {
						return
					}
				}
			}(c)
		}
	}()
	return endpoint(t, "http://"+ln.Addr().String())
}

// TestCookieJarAndHeadersBounded is finding 7 of issue 35: the jar had no bound, so 100,000
// Set-Cookie headers on one response used the preflight's whole timeout on CPU, 10,000 a
// response with 20 users took 490 MiB, and 20 new cookies a response grew a user without end.
// Now a response's header section is bounded (DefaultMaxHeaders lines, DefaultMaxHeaderBytes)
// and the jar keeps what browsers keep: MaxCookiesPerHost a host, MaxCookieBytes a cookie.
// Mutants: header-count-unbounded (the header bound's check gone) and jar-unbounded (the
// per-host eviction gone).
func TestCookieJarAndHeadersBounded(t *testing.T) {
	ctx := context.Background()
	flood := respondingServer(t, func(w *bufio.Writer, n int) {
		w.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n")
		for i := 0; i < 100_000; i++ {
			fmt.Fprintf(w, "Set-Cookie: c%d=v\r\n", i)
		}
		w.WriteString("\r\nok")
	})
	c := NewClient(&Options{})
	_, err := c.Do(ctx, flood, get("/"))
	if err == nil || !strings.Contains(err.Error(), "header section beyond") {
		t.Errorf("100,000 Set-Cookie headers: %v (want the header bound's error)", err)
	}
	if c.Jar.Len() > MaxCookiesPerHost {
		t.Errorf("the jar kept %d cookies of one host (bound %d)", c.Jar.Len(), MaxCookiesPerHost)
	}

	// 20 new cookies a response, each under the header bound: the jar stays at its limit,
	// keeping the newest (a cookie's size is bounded by the 4 KiB header line)
	drip := respondingServer(t, func(w *bufio.Writer, n int) {
		w.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n")
		for i := 0; i < 20; i++ {
			fmt.Fprintf(w, "Set-Cookie: r%d_%d=v\r\n", n, i)
		}
		w.WriteString("\r\nok")
	})
	c = NewClient(&Options{})
	for i := 0; i < 100; i++ {
		if _, err := c.Do(ctx, drip, get("/")); err != nil {
			t.Fatal(err)
		}
	}
	if c.Jar.Len() != MaxCookiesPerHost {
		t.Errorf("after 2,000 cookies the jar holds %d (want %d)", c.Jar.Len(), MaxCookiesPerHost)
	}
	if _, ok := c.Jar.Get("r100_19"); !ok {
		t.Errorf("the newest cookie was evicted")
	}
}

// TestKeptBodyBoundAppliedWhileReading: a kept body past Request.MaxBody fails as soon as the
// bound is passed (the preflight read 64 MiB of a 100 MB config.json before applying its 1 MiB
// limit). Mutant: maxbody-after-read (the Content-Length check before reading gone and the
// per-chunk check made to test the default bound instead).
func TestKeptBodyBoundAppliedWhileReading(t *testing.T) {
	big := respondingServer(t, func(w *bufio.Writer, n int) {
		fmt.Fprintf(w, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", 8<<20)
		w.Write(make([]byte, 8<<20))
	})
	budget := NewBodyBudget(64 << 20)
	c := NewClient(&Options{Budget: budget})
	req := get("/")
	req.MaxBody = 1 << 20
	_, err := c.Do(context.Background(), big, req)
	if err == nil || !strings.Contains(err.Error(), "larger than 1024 KiB") {
		t.Errorf("an 8 MiB body with a 1 MiB bound: %v", err)
	}
	if budget.Peak() > 1<<20 {
		t.Errorf("%d bytes were held for a body bounded to 1 MiB", budget.Peak())
	}
}
