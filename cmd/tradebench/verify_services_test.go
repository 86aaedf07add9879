package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
)

// tradebench verify --services against tradebench's services host over gRPC: exit 0, the
// accounts said first, level 2 of 2 in the summary and the JSON. A wrong token, a missing
// --services, an unknown --access and --target with --services are usage errors naming the flag.
func TestVerifyServicesCommand(t *testing.T) {
	s := startServices(t)
	in := s.Host().Info()
	t.Setenv(svcauth.EnvToken, clientTestToken)
	out := filepath.Join(t.TempDir(), "v.json")
	code, stdout, stderr := capture(t, "verify", "--services", in.GRPCAddr, "--access", "grpc", "--sync-orders", "--out", out)
	if code != 0 || !strings.Contains(stdout, "conformant: DayTrader-compatible to level 2 of 2") {
		t.Fatalf("verify --services: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "verify registers its own accounts (vsf-") || strings.Index(stderr, "registers its own") > strings.Index(stderr, "business.register_balance") {
		t.Fatalf("verify did not say first which accounts it creates:\n%s", stderr)
	}
	if v, err := report.ReadVerification(out); err != nil || !v.Conformant || v.Level != 2 || len(v.Accounts) < 2 {
		t.Fatalf("results %s: %+v %v", out, v, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--access", "rest"}, "--services is required"},
		{[]string{"--services", in.HTTPAddr, "--access", "ftp"}, "--access:"},
		{[]string{"--services", in.HTTPAddr, "--access", "rest", "--target", "http://127.0.0.1:1"}, "--target and --services"},
	} {
		if code, _, stderr := capture(t, append([]string{"verify"}, c.args...)...); code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("verify %v: exit %d, want %d and %q:\n%s", c.args, code, exitUsage, c.want, stderr)
		}
	}
	t.Setenv(svcauth.EnvToken, "wrong-token-0123456789-0123456789")
	if code, _, stderr := capture(t, "verify", "--services", in.HTTPAddr, "--access", "rest"); code != exitUsage || !strings.Contains(stderr, "service token") {
		t.Errorf("verify with a wrong token: exit %d, want %d naming the token:\n%s", code, exitUsage, stderr)
	}
}
