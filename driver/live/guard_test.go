package live

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/report"
)

// get sends GET path with the Host header host to addr and returns the status (0: the
// connection was closed without an answer).
func get(t *testing.T, addr, host, path string) int {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", path, host)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestLiveViewsGuarded is finding 6 of issue 35: the dashboard had no Host check (a
// DNS-rebinding page could read it, the final report included), no connection cap (1,000 held
// event streams accepted) and no authentication option. Mutants: live-host-unchecked (Guard
// allows every host), live-conns-uncapped (the dashboard's listener not capped).
func TestLiveViewsGuarded(t *testing.T) {
	const token = "0123456789abcdef-token"
	s, err := Start(context.Background(), Options{Dashboard: "127.0.0.1:0", MetricsListen: "127.0.0.1:0", MaxConns: 4, Token: token}, report.New("x"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	dash := strings.TrimSuffix(strings.TrimPrefix(s.DashboardURL(), "http://"), "/")
	met := strings.TrimSuffix(strings.TrimPrefix(s.MetricsURL(), "http://"), "/metrics")
	for _, c := range []struct {
		addr, host, path string
		want             int
	}{
		{dash, "evil.example", "/?token=" + token, http.StatusMisdirectedRequest},
		{dash, "evil.example:" + strings.Split(dash, ":")[1], "/report?token=" + token, http.StatusMisdirectedRequest},
		{met, "evil.example", "/metrics?token=" + token, http.StatusMisdirectedRequest},
		{dash, dash, "/", http.StatusUnauthorized},
		{dash, dash, "/?token=wrong", http.StatusUnauthorized},
		{met, met, "/metrics", http.StatusUnauthorized},
		{dash, dash, "/?token=" + token, http.StatusOK},
		{dash, "localhost", "/?token=" + token, http.StatusOK},
		{met, met, "/metrics?token=" + token, http.StatusOK},
	} {
		if got := get(t, c.addr, c.host, c.path); got != c.want {
			t.Errorf("GET %s Host: %s → %d, want %d", c.path, c.host, got, c.want)
		}
	}

	// the cap: 4 connections held open (event streams, say), the fifth is closed unanswered; a
	// session of its own, so no connection of the checks above is still being closed
	s2, err := Start(context.Background(), Options{Dashboard: "127.0.0.1:0", MaxConns: 4, Token: token}, report.New("x"))
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close(context.Background())
	dash = strings.TrimSuffix(strings.TrimPrefix(s2.DashboardURL(), "http://"), "/")
	var held []net.Conn
	for i := 0; i < 4; i++ {
		c, err := net.Dial("tcp", dash)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "GET /events?token=%s HTTP/1.1\r\nHost: %s\r\n\r\n", token, dash)
		held = append(held, c)
	}
	for _, c := range held { // each accepted: its stream answers
		c.SetDeadline(time.Now().Add(10 * time.Second))
		if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err != nil || resp.StatusCode != 200 {
			t.Fatalf("held stream: %v", err)
		}
	}
	if got := get(t, dash, dash, "/?token="+token); got != 0 {
		t.Errorf("a fifth connection beyond the cap of 4 was answered: %d", got)
	}
}
