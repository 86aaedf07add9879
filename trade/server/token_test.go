package server

import (
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/internal/natsx"
	"github.com/tradebench/tradebench/trade/orders"
)

// TestNATSTokenFileOfAFixedBroker: serve's embedded broker on a fixed port is joined by other
// processes, so with no NATS token configured Start writes ./tradebench-nats-token (mode 0600)
// and its broker requires that token; a start refused after the file was written (here: the
// web tier's address is taken) removes it again, so a refused command leaves nothing behind.
// Mutants: server-nats-token-unshared (the file is never written) → "no token file";
// server-token-file-kept (a refused start keeps the files it wrote) → "a refused start left".
func TestNATSTokenFileOfAFixedBroker(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv(natsx.EnvToken, "")
	free := func() int {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return l.Addr().(*net.TCPAddr).Port
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	db := "sqlite:" + filepath.Join(t.TempDir(), "serve.db")
	cfg := func(listen string) Config {
		c := DefaultConfig()
		c.DB, c.Listen, c.LoadIfEmpty, c.Logger = db, listen, smallSpec(5, 5), slog.New(slog.DiscardHandler)
		c.ResolveTokens, c.ServiceTokenFile = true, ""
		c.Orders.Mode, c.Orders.WorkDir, c.Orders.NATSPort = orders.AsyncVolatile, t.TempDir(), free()
		return c
	}
	if s, err := Start(context.Background(), cfg(taken.Addr().String())); err == nil {
		s.Close()
		t.Fatal("started on a taken address")
	}
	if _, err := os.Stat(natsx.DefaultTokenFile); err == nil {
		t.Fatalf("a refused start left %s behind", natsx.DefaultTokenFile)
	}
	s, err := Start(context.Background(), cfg("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fi, err := os.Stat(natsx.DefaultTokenFile)
	if err != nil {
		t.Fatalf("no token file for the processes that join the broker: %v", err)
	}
	b, _ := os.ReadFile(natsx.DefaultTokenFile)
	if fi.Mode().Perm() != 0o600 || strings.TrimSpace(string(b)) != s.Orders().NATSToken {
		t.Fatalf("token file mode %v, content %q; the broker's token %q", fi.Mode(), b, s.Orders().NATSToken)
	}
}
