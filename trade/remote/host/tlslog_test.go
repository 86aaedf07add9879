package host_test

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/testing/syncbuf"
	"github.com/tradebench/tradebench/trade/remote/host"
	"github.com/tradebench/tradebench/trade/remote/internal/testenv"
)

// TestFailedHandshakesLogBounded: 3,000 failed TLS handshakes on the mutual-TLS host must not
// write 519 KB of log (http.Server's error log, one line each): the server's error log goes
// through logsafe.ErrorLog, and one client's lines stop after the limiter's burst.
// Mutant checked by hand: httpserve.New with slog.NewLogLogger → "300 failed
// handshakes wrote 300 log lines".
func TestFailedHandshakesLogBounded(t *testing.T) {
	files := writeTLSFiles(t)
	stls, err := files.Server()
	if err != nil {
		t.Fatal(err)
	}
	var logs syncbuf.Buffer
	h, err := host.Start(context.Background(), testenv.Service(t), host.Config{HTTPListen: "127.0.0.1:0", Token: token, TLS: stls,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	const n = 300
	for range n {
		c, err := net.Dial("tcp", h.Info().HTTPAddr)
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")) // not a TLS hello
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		c.Read(make([]byte, 512)) // the server answers or closes once it has logged
		c.Close()
	}
	time.Sleep(200 * time.Millisecond)
	out := logs.String()
	lines := strings.Count(out, "\n")
	if !strings.Contains(out, "TLS handshake error") {
		t.Fatalf("no handshake error logged at all:\n%s", out)
	}
	if lines > 15 {
		t.Fatalf("%d failed handshakes wrote %d log lines (%d bytes)", n, lines, len(out))
	}
}
