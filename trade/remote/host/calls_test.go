package host_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/testing/netfault"
	"github.com/tradebench/tradebench/trade/remote"
	"github.com/tradebench/tradebench/trade/remote/host"
	"github.com/tradebench/tradebench/trade/remote/internal/testenv"
)

// Each transport's calls are counted under that transport and operation, and nowhere else; a
// refused call (an unknown symbol) still reached the service and counts.
func TestHostCountsCallsPerTransport(t *testing.T) {
	svc := testenv.Service(t)
	ctx := context.Background()
	h, err := host.Start(ctx, svc, host.Config{HTTPListen: "127.0.0.1:0", GRPCListen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	transports := []string{remote.SOAP, remote.REST, remote.GRPC}
	for i, tr := range transports {
		addr := h.HTTPAddr()
		if tr == remote.GRPC {
			addr = h.GRPCAddr()
		}
		c, err := remote.Dial(tr, addr, remote.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		for range i + 1 { // 1 over SOAP, 2 over REST, 3 over gRPC
			if _, err := c.GetQuote(ctx, testenv.Symbols[0]); err != nil {
				t.Fatalf("%s: %v", tr, err)
			}
		}
		if _, err := c.GetQuote(ctx, "s:nope"); err == nil {
			t.Fatalf("%s: an unknown symbol was found", tr)
		}
		if _, err := c.Login(ctx, testenv.User, testenv.Password); err != nil {
			t.Fatalf("%s: %v", tr, err)
		}
	}
	calls := h.Calls()
	for i, tr := range transports {
		if got, want := calls.Count(tr, host.OpGetQuote), int64(i+2); got != want {
			t.Errorf("%s getQuote: %d calls, want %d", tr, got, want)
		}
		if got := calls.Count(tr, host.OpLogin); got != 1 {
			t.Errorf("%s login: %d calls, want 1", tr, got)
		}
		if got, want := calls.Total(tr), int64(i+3); got != want {
			t.Errorf("%s: %d calls in all, want %d", tr, got, want)
		}
	}
	if got := calls.Total(remote.InProcess); got != 0 {
		t.Errorf("%d calls counted in-process on a host", got)
	}
	if got := calls.Count(remote.SOAP, "noSuchOperation"); got != 0 {
		t.Errorf("an unknown operation counts %d", got)
	}
	if got := calls.Counts(); len(got) != 6 || got[0] != (host.CallCount{Transport: remote.GRPC, Operation: host.OpLogin, Calls: 1}) {
		t.Errorf("Counts() = %+v, want 6 rows, gRPC login first", got)
	}
}

// A host whose listener dies closes Failed and says which endpoint stopped; one that is closed
// does not. Catches a host that notes the error but never closes Failed (checked by hand: "Failed
// not closed a minute after the listener died"; the minute is only a bound on a hang, a working
// host closes Failed within milliseconds).
func TestHostFailedWhenListenerDies(t *testing.T) {
	svc := testenv.Service(t)
	for _, tc := range []struct{ name, want string }{{"http", "SOAP/REST server"}, {"grpc", "gRPC server"}} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := host.Start(context.Background(), svc, host.Config{HTTPListen: "127.0.0.1:0", GRPCListen: "127.0.0.1:0"})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			addr := h.HTTPAddr()
			if tc.name == "grpc" {
				addr = h.GRPCAddr()
			}
			if err := netfault.KillListener(addr); errors.Is(err, netfault.ErrUnsupported) {
				t.Skip(err)
			} else if err != nil {
				t.Fatal(err)
			}
			select {
			case <-h.Failed():
			case <-time.After(time.Minute): // only so a broken host fails instead of hanging
				t.Fatal("Failed not closed a minute after the listener died")
			}
			if err := h.Err(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Err() = %v, want it to name the %s", err, tc.want)
			}
		})
	}
	h, err := host.Start(context.Background(), svc, host.Config{HTTPListen: "127.0.0.1:0", GRPCListen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	h.Close()
	select {
	case <-h.Failed():
		t.Fatal("Close closed Failed")
	default:
	}
	if err := h.Err(); err != nil {
		t.Fatalf("Err() after Close = %v", err)
	}
}
