package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/tradebench/tradebench/bench/smartclient"
	"github.com/tradebench/tradebench/bench/verify"
	"github.com/tradebench/tradebench/bench/verifyservices"
	"github.com/tradebench/tradebench/internal/cliflag"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
)

// servicesFlags are verify's flags of its services mode (bench/verifyservices).
type servicesFlags struct {
	addr, access, tokenFile string
	syncOrders              bool
}

func (f *servicesFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.addr, "services", "", "verify a services host (serve --role bsl) instead of a web tier: its endpoint for --access (host:port; the SOAP/REST address for soap and rest, the gRPC address for grpc)")
	fs.StringVar(&f.access, "access", "", "with --services: the transport, soap, rest or grpc")
	fs.StringVar(&f.tokenFile, "service-token-file", "", "with --services: file holding the deployment's service token; $"+svcauth.EnvToken+" wins")
	fs.BoolVar(&f.syncOrders, "sync-orders", false, "with --services: the host's orders are synchronous, so every order must be final when placed (else within --order-bound)")
}

// servicesVerifyFlags maps verifyservices.Config's fields to the flags that set them.
var servicesVerifyFlags = cliflag.Names{"Addr": "services", "Access": "access", "Timeout": "timeout", "OrderBound": "order-bound", "Symbols": "symbols"}

// runVerifyServices is `verify --services`: the same outputs as a web tier's verification.
func runVerifyServices(ctx context.Context, f servicesFlags, web verify.Config, symbols, out, junit string, noReport bool) error {
	if f.addr == "" {
		return cliflag.Errorf("--services is required with --access: the services host's %s endpoint (host:port)", f.access)
	}
	token, _, _, err := svcauth.Resolve(f.tokenFile, false)
	if err != nil {
		return cliflag.Errorf("--service-token-file: %v", err)
	}
	cfg := verifyservices.Config{Addr: f.addr, Access: f.access, Token: token, Timeout: web.Timeout, OrderBound: web.OrderBound,
		SyncOrders: f.syncOrders, Symbols: splitList(symbols)}
	cfg.SetDefaults()
	for flag, path := range map[string]string{"--out": out, "--junit": junit} {
		if path != "" {
			if err := report.CheckWritable(path); err != nil {
				return cliflag.Errorf("%s: %v", flag, err)
			}
		}
	}
	svc, err := verifyservices.Dial(cfg)
	if err != nil {
		return servicesVerifyFlags.UsageError(err)
	}
	defer svc.Close()
	if err := smartclient.Reachable(ctx, svc, cfg.Timeout); err != nil {
		return cliflag.Errorf("--services %s: the services host does not answer over %s: %v", f.addr, f.access, err)
	}
	run := verifyservices.NewRun()
	fmt.Fprintf(os.Stderr, "verify %s://%s: %s\n", f.access, f.addr, verifyservices.Notice(run))
	cfg.Progress = os.Stderr
	res, err := verifyservices.Check(ctx, svc, cfg, run)
	if res == nil {
		return servicesVerifyFlags.OrUsage(err)
	}
	res.WriteSummary(os.Stdout)
	if err != nil {
		return err // interrupted: what was checked is printed, but it is no verdict
	}
	if err := writeVerification(res, out, junit, noReport); err != nil {
		return err
	}
	return res.Err()
}
