package host_test

import (
	"context"
	"testing"
	"time"

	"github.com/tradebench/tradebench/trade"
	"github.com/tradebench/tradebench/trade/remote"
	"github.com/tradebench/tradebench/trade/remote/host"
	"github.com/tradebench/tradebench/trade/remote/internal/testenv"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
)

// TestLoginThrottleSeesTheEndClient: a web tier calls the services host for every visitor, so
// the host must count wrong passwords per visitor, not per web tier: the visitor's address
// (trade.WithClient) travels with the service token over SOAP, REST and gRPC. A stranger who
// reaches the limit on an account is refused; its owner, another visitor of the same web tier,
// logs in.
// Mutant checked by hand: svcauth's bearer and perRPC not sending the client → "soap: the
// owner was refused: too many failed logins for this user id".
func TestLoginThrottleSeesTheEndClient(t *testing.T) {
	svc := testenv.Service(t)
	h, err := host.Start(context.Background(), svc, host.Config{HTTPListen: "127.0.0.1:0", GRPCListen: "127.0.0.1:0", Token: token})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	in := h.Info()
	for i, mode := range []string{remote.SOAP, remote.REST, remote.GRPC} {
		addr := in.HTTPAddr
		if mode == remote.GRPC {
			addr = in.GRPCAddr
		}
		c, err := remote.Dial(mode, addr, remote.Options{Timeout: 5 * time.Second, Auth: svcauth.Client{Token: token}})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		user := []string{"uid:3", "uid:4", "uid:5"}[i]
		stranger := trade.WithClient(context.Background(), "198.51.100.7")
		owner := trade.WithClient(context.Background(), "203.0.113.9")
		for range testenv.LoginMaxFailures {
			c.Login(stranger, user, "guess")
		}
		if _, err := c.Login(stranger, user, "xxx"); trade.AsError(err) == nil || trade.AsError(err).Code != trade.CodeTooManyRequests {
			t.Fatalf("%s: the stranger after %d wrong passwords: %v, want refused", mode, testenv.LoginMaxFailures, err)
		}
		if _, err := c.Login(owner, user, "xxx"); err != nil {
			t.Fatalf("%s: the owner was refused: %v", mode, err)
		}
	}
}
