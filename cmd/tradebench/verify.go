package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/tradebench/tradebench/bench/verify"
	"github.com/tradebench/tradebench/internal/cliflag"
	"github.com/tradebench/tradebench/report"
)

func init() {
	register(&command{name: "verify", summary: "certify a DayTrader-compatible target before measuring it: the application's pages, business rules, isolation and input, and an audit, checked over the wire", run: runVerifyCmd})
}

var verifyHelp = helpText("verify.txt")

// verifyFlags maps verify.Config's and verify.Outputs' fields to the flags that set them.
var verifyFlags = cliflag.Names{"Target": "target", "Timeout": "timeout", "OrderBound": "order-bound", "Symbols": "symbols",
	"AuditUsers": "audit-users", "AuditTrades": "audit-trades", "JSON": "out", "JUnit": "junit", "Deadline": "deadline",
	"SummaryBound": "summary-bound"}

func runVerifyCmd(ctx context.Context, args []string) error {
	fs := cliflag.NewFlagSet("tradebench verify", "--target URL [--out FILE.json] [--junit FILE.xml] [flags]")
	var cfg verify.Config
	fs.StringVar(&cfg.Target, "target", "", "the web tier's base URL, e.g. http://127.0.0.1:8080 (the /daytrader/… paths are below it)")
	fs.DurationVar(&cfg.Timeout, "timeout", verify.DefaultTimeout, "bound of each request")
	fs.DurationVar(&cfg.Deadline, "deadline", verify.DefaultDeadline, "bound of the whole verification: the checks not made by then are skipped, and verify says so (exit 1)")
	fs.DurationVar(&cfg.SummaryBound, "summary-bound", verify.DefaultSummary, "how long the market summary is read again while it lists no quote (an implementation may compute it on a timer)")
	fs.DurationVar(&cfg.OrderBound, "order-bound", verify.DefaultOrderBound, "how long an order may take to complete (a target whose /trade/config.json says its orders are synchronous must complete them at once)")
	symbols := fs.String("symbols", strings.Join(verify.DefaultSymbols, ","), "the quotes verify trades (at least two; every DayTrader data set has s:1, s:2, s:3)")
	fs.IntVar(&cfg.AuditUsers, "audit-users", verify.DefaultAuditUsers, "accounts trading at once in the audit's load")
	fs.IntVar(&cfg.AuditTrades, "audit-trades", verify.DefaultAuditTrades, "orders each audit account places")
	fs.BoolVar(&cfg.Insecure, "insecure", false, "accept any TLS certificate of the target")
	o := verify.Outputs{Log: os.Stderr}
	fs.StringVar(&o.JSON, "out", "", "write the verification JSON here (and the HTML report beside it, FILE.html)")
	fs.StringVar(&o.JUnit, "junit", "", "write the checks as JUnit XML here (one suite per level), for CI")
	fs.BoolVar(&o.NoReport, "no-report", false, "do not write the HTML report beside --out")
	fs.BoolVar(&o.Force, "force", false, "replace an existing --out, its report or --junit file (without it an existing file is refused before anything is verified)")
	var sf servicesFlags
	sf.register(fs)
	cliflag.SetHelp(fs, verifyHelp)
	if err := cliflag.Parse(fs, args, false); err != nil {
		return err
	}
	if sf.Addr != "" || sf.Access != "" {
		if cfg.Target != "" {
			return cliflag.Errorf("--target and --services: give one, a web tier's URL or a services host's address")
		}
		sf.Timeout, sf.OrderBound, sf.Symbols = cfg.Timeout, cfg.OrderBound, cliflag.SplitList(*symbols)
		return runVerifyServices(ctx, sf.Config, o)
	}
	cfg.Symbols = cliflag.SplitList(*symbols)
	cfg.SetDefaults()
	if err := cfg.Validate(); err != nil {
		return verifyFlags.UsageError(err)
	}
	if err := o.Check(); err != nil {
		return verifyFlags.UsageError(err)
	}
	res, err := verify.RunNoticed(ctx, cfg, os.Stderr)
	if res == nil {
		return verifyFlags.OrUsage(err)
	}
	return deadlineFlag(verify.Finish(o, res, err, os.Stdout))
}

// deadlineFlag says a verification ended by its deadline in the command's words.
func deadlineFlag(err error) error {
	if de := (*verify.DeadlineError)(nil); errors.As(err, &de) {
		return fmt.Errorf("--deadline %v ended the verification before every check was made (the checks not made are skipped; it is no verdict): give a longer --deadline", de.Deadline)
	}
	return err
}

// verifyFirst is drive's and run's --verify (verify.Before): verify the target before
// measuring it, refuse a target that is not conformant unless --verify-force, and put the
// outcome into the results.
type verifyFirst struct {
	on, force bool
}

func (vf *verifyFirst) register(fs *flag.FlagSet) {
	fs.BoolVar(&vf.on, "verify", false, "verify the target first (tradebench verify): refuse to measure a target that is not conformant (exit 7); the outcome and level go into the results' disclosure and the report's header")
	fs.BoolVar(&vf.force, "verify-force", false, "with --verify: measure a target that is not conformant anyway (the results say so)")
}

// check runs the verification when --verify asks for it; the summary it returns goes into the
// results (nil without --verify).
func (vf *verifyFirst) check(ctx context.Context, target string, insecure bool) (*report.VerificationSummary, error) {
	switch {
	case vf.force && !vf.on:
		return nil, cliflag.Errorf("--verify-force goes with --verify")
	case !vf.on:
		return nil, nil
	case target == "":
		return nil, cliflag.Errorf("--verify checks a --target; the embedded server is tradebench itself, which bench/verify's tests certify in every mode")
	}
	sum, err := verify.Before(ctx, verify.Config{Target: target, Insecure: insecure}, vf.force, os.Stderr)
	if nc := (*report.NotConformant)(nil); errors.As(err, &nc) {
		err = fmt.Errorf("%w (--verify-force measures it anyway)", err)
	}
	return sum, err
}

// addVerification puts the verification into the results' disclosure.
func addVerification(res *report.Results, sum *report.VerificationSummary) {
	if res == nil || sum == nil {
		return
	}
	if res.Disclosure == nil {
		res.Disclosure = &report.Disclosure{}
	}
	res.Disclosure.Verification = sum
}
