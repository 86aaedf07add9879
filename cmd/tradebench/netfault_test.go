package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/testing/netfault"
)

// The network fault's control (tradebench netfault, scripts/testbed crash net): a bad duration
// is refused with a message naming the parameter and changes nothing; a cut answers when it is
// over with its window and resets the connection that was open through the proxy. The
// tradebench binary hides the command.
func TestNetfaultControl(t *testing.T) {
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	go func() {
		for {
			c, err := echo.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); io.Copy(c, c) }()
		}
	}()
	p, err := netfault.Listen("127.0.0.1:0", echo.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	go p.Serve()
	defer p.Close()
	srv := httptest.NewServer(netfaultControl(context.Background(), []*netfault.Proxy{p}))
	defer srv.Close()

	for _, q := range []string{"/cut", "/cut?for=0s", "/cut?for=11m", "/delay?for=1s", "/delay?for=1s&by=2m", "/cut?for=x"} {
		resp, err := http.Post(srv.URL+q, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "want a duration") {
			t.Errorf("POST %s: %d %q, want 400 naming the duration", q, resp.StatusCode, b)
		}
	}

	c, err := net.Dial("tcp", p.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(15 * time.Second))
	r := bufio.NewReader(c)
	io.WriteString(c, "hello\n")
	if l, err := r.ReadString('\n'); err != nil || l != "hello\n" {
		t.Fatalf("through the proxy before any fault (the bad requests changed something?): %q %v", l, err)
	}
	type answer struct {
		code int
		win  netfaultWindow
	}
	done := make(chan answer, 1)
	go func() {
		resp, err := http.Post(srv.URL+"/cut?for=300ms", "", nil)
		if err != nil {
			done <- answer{}
			return
		}
		defer resp.Body.Close()
		var a answer
		a.code = resp.StatusCode
		json.NewDecoder(resp.Body).Decode(&a.win)
		done <- a
	}()
	if _, err := r.ReadString('\n'); err == nil {
		t.Fatal("the connection open at the cut was not cut")
	}
	a := <-done
	if a.code != http.StatusOK || a.win.End.Sub(a.win.Start) < 300*time.Millisecond {
		t.Fatalf("the cut's answer: %d, window %v–%v, want 200 and at least 300 ms", a.code, a.win.Start, a.win.End)
	}
	if strings.Contains(tb(t, "--help").stdout, "netfault") {
		t.Error("tradebench --help lists the test bed's netfault command")
	}
}

// TestNetfaultControlSocketIsTheOwners: the control socket, which can cut the test bed's
// network, is readable and writable by its owner only, whatever the umask (syscall.Umask(0)
// here would make it 0777).
func TestNetfaultControlSocketIsTheOwners(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "ctl")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runNetfault(ctx, []string{"--forward", "127.0.0.1:0=127.0.0.1:1", "--control", sock}) }()
	defer func() { cancel(); <-done }()
	// an answer over the socket: the command serves only once the socket's mode is set
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	for {
		if resp, err := hc.Get("http://netfault/status"); err == nil {
			resp.Body.Close()
			break
		}
		select {
		case err := <-done:
			t.Fatalf("netfault ended: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	fi, err := os.Stat(sock)
	if err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode().Perm(); m != 0o600 {
		t.Errorf("the control socket's mode is %v, want 0600", m)
	}
}
