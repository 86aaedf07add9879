package httpc

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func endpoint(t *testing.T, raw string) *Endpoint {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	ep, err := ParseEndpoint(u)
	if err != nil {
		t.Fatal(err)
	}
	return &ep
}

// countingServer counts the connections the server accepted.
func countingServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

func get(target string) *Request {
	return &Request{Method: "GET", Target: []byte(target), KeepBody: true}
}

func TestKeepAliveContentLengthAndChunked(t *testing.T) {
	big := strings.Repeat("0123456789", 1000) // > 2 KiB and flushed: net/http sends it chunked
	srv, conns := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/small":
			w.Write([]byte("hello"))
		case "/big":
			w.Write([]byte(big[:5000]))
			w.(http.Flusher).Flush()
			w.Write([]byte(big[5000:]))
		case "/post":
			b, _ := io.ReadAll(r.Body)
			w.Header().Set("X-Len", "1")
			w.Write([]byte(r.Method + ":" + string(b) + ":" + r.Header.Get("X-A") + ":" + r.Host + ":" + r.UserAgent()))
		case "/empty":
			w.WriteHeader(204)
		}
	})
	ep := endpoint(t, srv.URL)
	c := NewClient(&Options{UserAgent: "ua/1"})
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		resp, err := c.Do(ctx, ep, get("/small"))
		if err != nil || resp.Status != 200 || string(resp.Body) != "hello" || resp.Bytes != 5 {
			t.Fatalf("small: %+v %v", resp, err)
		}
		resp, err = c.Do(ctx, ep, get("/big"))
		if err != nil || string(resp.Body) != big || resp.Bytes != int64(len(big)) {
			t.Fatalf("big (chunked): %d bytes, %v", resp.Bytes, err)
		}
		// not kept: read and counted only
		resp, err = c.Do(ctx, ep, &Request{Target: []byte("/big")})
		if err != nil || resp.Body != nil || resp.Bytes != int64(len(big)) {
			t.Fatalf("big discarded: %d bytes, %v", resp.Bytes, err)
		}
		resp, err = c.Do(ctx, ep, &Request{Method: "HEAD", Target: []byte("/small")})
		if err != nil || resp.Status != 200 || resp.Bytes != 0 {
			t.Fatalf("head: %+v %v", resp, err)
		}
		resp, err = c.Do(ctx, ep, get("/empty"))
		if err != nil || resp.Status != 204 {
			t.Fatalf("204: %+v %v", resp, err)
		}
	}
	resp, err := c.Do(ctx, ep, &Request{Method: "POST", Target: []byte("/post"), Header: []byte("X-A: b\r\n"), Body: []byte("x=1"), KeepBody: true})
	if err != nil || string(resp.Body) != "POST:x=1:b:"+ep.Host+":ua/1" {
		t.Fatalf("post: %q %v", resp.Body, err)
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for 16 keep-alive requests, want 1", n)
	}
	c.CloseConn()
	if _, err := c.Do(ctx, ep, get("/small")); err != nil {
		t.Fatal(err)
	}
	if n := conns.Load(); n != 2 {
		t.Errorf("after CloseConn: %d connections, want 2", n)
	}
}

// rawServer answers each connection with handle; it returns the address.
func rawServer(t *testing.T, handle func(c net.Conn, br *bufio.Reader)) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				handle(c, bufio.NewReader(c))
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

func readRequest(br *bufio.Reader) bool {
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return false
		}
		if line == "\r\n" {
			return true
		}
	}
}

func TestConnectionCloseAndBodyToEOF(t *testing.T) {
	var conns atomic.Int64
	addr := rawServer(t, func(c net.Conn, br *bufio.Reader) {
		conns.Add(1)
		if !readRequest(br) {
			return
		}
		if conns.Load()%2 == 1 {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nhi")
		} else {
			io.WriteString(c, "HTTP/1.0 200 OK\r\n\r\nuntil the end")
		}
	})
	ep := endpoint(t, addr)
	c := NewClient(&Options{})
	for i, want := range []string{"hi", "until the end", "hi"} {
		resp, err := c.Do(context.Background(), ep, get("/"))
		if err != nil || string(resp.Body) != want {
			t.Fatalf("request %d: %q %v", i, resp.Body, err)
		}
	}
	if conns.Load() != 3 {
		t.Errorf("%d connections, want 3 (each response closed its connection)", conns.Load())
	}
}

func TestStaleKeepAliveConnectionIsRetried(t *testing.T) {
	// the server answers one request per connection and then closes it without saying so,
	// as a server does whose idle timeout expired while the user was thinking
	var conns atomic.Int64
	addr := rawServer(t, func(c net.Conn, br *bufio.Reader) {
		conns.Add(1)
		if readRequest(br) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		}
	})
	ep := endpoint(t, addr)
	c := NewClient(&Options{})
	for i := 0; i < 3; i++ {
		time.Sleep(20 * time.Millisecond) // let the close arrive
		if resp, err := c.Do(context.Background(), ep, get("/")); err != nil || resp.Status != 200 {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	if conns.Load() != 3 {
		t.Errorf("%d connections, want 3", conns.Load())
	}
}

func TestErrorsHaveKinds(t *testing.T) {
	addr := rawServer(t, func(c net.Conn, br *bufio.Reader) {
		if !readRequest(br) {
			return
		}
		io.WriteString(c, "SMTP ready\r\n\r\n")
	})
	c := NewClient(&Options{Timeout: 200 * time.Millisecond})
	_, err := c.Do(context.Background(), endpoint(t, addr), get("/"))
	var he *Error
	if !errors.As(err, &he) || he.Kind() != KindProtocol {
		t.Errorf("garbage response: %v", err)
	}

	stall := rawServer(t, func(c net.Conn, br *bufio.Reader) {
		readRequest(br)
		time.Sleep(2 * time.Second)
	})
	_, err = c.Do(context.Background(), endpoint(t, stall), get("/"))
	if !errors.As(err, &he) || he.Kind() != KindTimeout {
		t.Errorf("stalled server: %v", err)
	}

	// cancelling the context interrupts a blocked read (before the server's 2 s stall ends and
	// long before the minute's timeout): the error is the cancellation, not a timeout or a reply
	c = NewClient(&Options{Timeout: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err = c.Do(ctx, endpoint(t, stall), get("/"))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancel: %v", err)
	}

	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://" + ln.Addr().String()
	ln.Close()
	_, err = NewClient(&Options{}).Do(context.Background(), endpoint(t, closed), get("/"))
	if !errors.As(err, &he) || he.Kind() != KindConnect {
		t.Errorf("refused: %v", err)
	}
}

// A kept-alive connection's deadline is moved only when it falls closer than the timeout: every
// request on it still gets the whole timeout, however long the connection has lived, and a
// stall on it still times out. Catches a deadline set once per connection (the fourth request
// below, 1.2 s into the connection's life, would fail) and one never set on a reused connection
// (the stall would wait for the server's 5 s). Generous times, so a busy machine passes.
func TestTimeoutOnReusedConnection(t *testing.T) {
	var n atomic.Int64
	addr := rawServer(t, func(c net.Conn, br *bufio.Reader) {
		for readRequest(br) {
			if n.Add(1) == 6 {
				time.Sleep(5 * time.Second)
				return
			}
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		}
	})
	ep := endpoint(t, addr)
	c := NewClient(&Options{Timeout: time.Second})
	for i := 0; i < 5; i++ {
		if i > 0 {
			time.Sleep(400 * time.Millisecond)
		}
		if _, err := c.Do(context.Background(), ep, get("/")); err != nil {
			t.Fatalf("request %d, %d ms into the connection: %v", i+1, 400*i, err)
		}
	}
	start := time.Now()
	_, err := c.Do(context.Background(), ep, get("/"))
	var he *Error
	if !errors.As(err, &he) || he.Kind() != KindTimeout {
		t.Fatalf("stalled reused connection: %v", err)
	}
	if el := time.Since(start); el < time.Second || el > 4*time.Second {
		t.Fatalf("timed out after %v, want the 1 s timeout (to within 1/64), not the 5 s stall", el)
	}
	if n.Load() != 6 {
		t.Fatalf("server saw %d requests, want 6", n.Load())
	}
}

func TestCookieJar(t *testing.T) {
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/login":
			http.SetCookie(w, &http.Cookie{Name: "SID", Value: "abc", Path: "/"})
			http.SetCookie(w, &http.Cookie{Name: "APP", Value: "1", Path: "/app"})
			http.SetCookie(w, &http.Cookie{Name: "OTHER", Value: "x", Domain: "example.com"})
		case "/logout":
			http.SetCookie(w, &http.Cookie{Name: "SID", Value: "", Path: "/", MaxAge: -1})
		}
		var names []string
		for _, c := range r.Cookies() {
			names = append(names, c.Name+"="+c.Value)
		}
		w.Write([]byte(strings.Join(names, ",")))
	})
	ep := endpoint(t, srv.URL)
	c := NewClient(&Options{})
	do := func(p string) string {
		resp, err := c.Do(context.Background(), ep, get(p))
		if err != nil {
			t.Fatal(err)
		}
		return string(resp.Body)
	}
	do("/login")
	if c.Jar.Len() != 2 {
		t.Errorf("jar holds %d cookies, want 2 (the other domain's refused)", c.Jar.Len())
	}
	if got := do("/x"); got != "SID=abc" {
		t.Errorf("/x sent %q", got)
	}
	if got := do("/app/page?q=1"); got != "SID=abc,APP=1" {
		t.Errorf("/app/page sent %q", got)
	}
	if got := do("/application"); got != "SID=abc" {
		t.Errorf("/application sent %q (the /app cookie must not match)", got)
	}
	do("/logout")
	if got := do("/app"); got != "APP=1" {
		t.Errorf("after logout sent %q", got)
	}
	c.Jar.Reset()
	if got := do("/app"); got != "" {
		t.Errorf("after Reset sent %q", got)
	}
}

func BenchmarkKeepAliveGet(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello world\n")) }))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	ep, _ := ParseEndpoint(u)
	c := NewClient(&Options{})
	req := &Request{Method: "GET", Target: []byte("/")}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Do(ctx, &ep, req); err != nil {
			b.Fatal(err)
		}
	}
}
