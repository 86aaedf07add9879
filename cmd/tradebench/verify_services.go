package main

import (
	"context"
	"flag"
	"os"

	"github.com/tradebench/tradebench/bench/verify"
	"github.com/tradebench/tradebench/bench/verifyservices"
	"github.com/tradebench/tradebench/internal/cliflag"
	"github.com/tradebench/tradebench/trade/remote/svcauth"
)

// servicesFlags are verify's flags of its services mode (bench/verifyservices); the flags the
// two modes share (--timeout, --order-bound, --symbols, --out, --junit) are verify's.
type servicesFlags struct{ verifyservices.Config }

func (f *servicesFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.Addr, "services", "", "verify a services host (serve --role bsl) instead of a web tier: its endpoint for --access (host:port; the SOAP/REST address for soap and rest, the gRPC address for grpc)")
	fs.StringVar(&f.Access, "access", "", "with --services: the transport, soap, rest or grpc")
	fs.StringVar(&f.TokenFile, "service-token-file", "", "with --services: file holding the deployment's service token; $"+svcauth.EnvToken+" wins")
	fs.BoolVar(&f.SyncOrders, "sync-orders", false, "with --services: the host's orders are synchronous, so every order must be final when placed (else within --order-bound)")
}

// servicesVerifyFlags maps verifyservices.Config's and verify.Outputs' fields to the flags that set them.
var servicesVerifyFlags = cliflag.Names{"Addr": "services", "Access": "access", "Timeout": "timeout", "OrderBound": "order-bound", "Symbols": "symbols",
	"TokenFile": "service-token-file", "JSON": "out", "JUnit": "junit"}

// runVerifyServices is `verify --services`: the same outputs as a web tier's verification.
func runVerifyServices(ctx context.Context, cfg verifyservices.Config, o verify.Outputs) error {
	if cfg.Addr == "" {
		return cliflag.Errorf("--services is required with --access: the services host's %s endpoint (host:port)", cfg.Access)
	}
	if err := o.Check(); err != nil {
		return servicesVerifyFlags.UsageError(err)
	}
	res, err := verifyservices.RunNoticed(ctx, cfg, os.Stderr)
	if res == nil {
		return servicesVerifyFlags.OrUsage(err)
	}
	return verify.Finish(o, res, err, os.Stdout)
}
