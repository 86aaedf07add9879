package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tradebench/tradebench/bench/verify"
	"github.com/tradebench/tradebench/internal/cliflag"
	"github.com/tradebench/tradebench/internal/dsn"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/report/htmlreport"
)

func init() {
	register(&command{name: "verify", summary: "certify a DayTrader-compatible target before measuring it: the application's pages, business rules, isolation and input, and an audit, checked over the wire", run: runVerifyCmd})
}

var verifyHelp = helpText("verify.txt")

// verifyFlags maps verify.Config's fields to the flags that set them.
var verifyFlags = cliflag.Names{"Target": "target", "Timeout": "timeout", "OrderBound": "order-bound", "Symbols": "symbols",
	"AuditUsers": "audit-users", "AuditTrades": "audit-trades"}

func runVerifyCmd(ctx context.Context, args []string) error {
	fs := cliflag.NewFlagSet("tradebench verify", "--target URL [--out FILE.json] [--junit FILE.xml] [flags]")
	var cfg verify.Config
	fs.StringVar(&cfg.Target, "target", "", "the web tier's base URL, e.g. http://127.0.0.1:8080 (the /daytrader/… paths are below it)")
	fs.DurationVar(&cfg.Timeout, "timeout", verify.DefaultTimeout, "bound of each request")
	fs.DurationVar(&cfg.OrderBound, "order-bound", verify.DefaultOrderBound, "how long an order may take to complete (a target whose /trade/config.json says its orders are synchronous must complete them at once)")
	symbols := fs.String("symbols", strings.Join(verify.DefaultSymbols, ","), "the quotes verify trades (at least two; every DayTrader data set has s:1, s:2, s:3)")
	fs.IntVar(&cfg.AuditUsers, "audit-users", verify.DefaultAuditUsers, "accounts trading at once in the audit's load")
	fs.IntVar(&cfg.AuditTrades, "audit-trades", verify.DefaultAuditTrades, "orders each audit account places")
	fs.BoolVar(&cfg.Insecure, "insecure", false, "accept any TLS certificate of the target")
	out := fs.String("out", "", "write the verification JSON here (and the HTML report beside it, FILE.html)")
	junit := fs.String("junit", "", "write the checks as JUnit XML here (one suite per level), for CI")
	noReport := fs.Bool("no-report", false, "do not write the HTML report beside --out")
	var sf servicesFlags
	sf.register(fs)
	cliflag.SetHelp(fs, verifyHelp)
	if err := cliflag.Parse(fs, args, false); err != nil {
		return err
	}
	if sf.addr != "" || sf.access != "" {
		if cfg.Target != "" {
			return cliflag.Errorf("--target and --services: give one, a web tier's URL or a services host's address")
		}
		return runVerifyServices(ctx, sf, cfg, *symbols, *out, *junit, *noReport)
	}
	cfg.Symbols = splitList(*symbols)
	cfg.SetDefaults()
	if err := cfg.Validate(); err != nil {
		return verifyFlags.UsageError(err)
	}
	for flag, path := range map[string]string{"--out": *out, "--junit": *junit} {
		if path != "" {
			if err := report.CheckWritable(path); err != nil {
				return cliflag.Errorf("%s: %v", flag, err)
			}
		}
	}
	res, err := verifyTarget(ctx, cfg, os.Stderr)
	if res == nil {
		return verifyFlags.OrUsage(err)
	}
	res.WriteSummary(os.Stdout)
	if err != nil {
		return err // interrupted: what was checked is printed, but it is no verdict
	}
	if err := writeVerification(res, *out, *junit, *noReport); err != nil {
		return err
	}
	return res.Err()
}

// verifyTarget runs the suite, saying first what it will create (on log).
func verifyTarget(ctx context.Context, cfg verify.Config, log io.Writer) (*report.Verification, error) {
	run := verify.NewRun()
	fmt.Fprintf(log, "verify %s: %s\n", dsn.Redact(cfg.Target), verify.Notice(run))
	cfg.Progress = log
	return verify.Run(ctx, cfg, run)
}

// writeVerification writes verify's --out (and its report) and --junit.
func writeVerification(res *report.Verification, out, junit string, noReport bool) error {
	if out != "" {
		if err := res.WriteFile(out); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		fmt.Fprintf(os.Stderr, "results written to %s\n", out)
		if !noReport {
			html := htmlreport.PathFor(out)
			if err := htmlreport.WriteFile(html, func(w io.Writer) error { return htmlreport.RenderVerification(w, res) }); err != nil {
				return fmt.Errorf("report: %w", err)
			}
			fmt.Fprintf(os.Stderr, "report written to %s\n", html)
		}
	}
	if junit != "" {
		f, err := os.Create(junit)
		if err != nil {
			return fmt.Errorf("--junit: %w", err)
		}
		if err := res.WriteJUnit(f); err != nil {
			f.Close()
			return fmt.Errorf("--junit: %w", err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("--junit: %w", err)
		}
	}
	return nil
}

// splitList splits a comma-separated flag value, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// verifyFirst is drive's and run's --verify: verify the target before measuring it, refuse a
// target that is not conformant unless --verify-force, and put the outcome into the results.
type verifyFirst struct {
	on, force bool
}

func (vf *verifyFirst) register(fs *flag.FlagSet) {
	fs.BoolVar(&vf.on, "verify", false, "verify the target first (tradebench verify): refuse to measure a target that is not conformant (exit 7); the outcome and level go into the results' disclosure and the report's header")
	fs.BoolVar(&vf.force, "verify-force", false, "with --verify: measure a target that is not conformant anyway (the results say so)")
}

// check runs the verification when --verify asks for it; the summary it returns goes into the
// results (nil without --verify). A target that is not conformant is refused (a
// *report.NotConformant) unless --verify-force.
func (vf *verifyFirst) check(ctx context.Context, target string, insecure bool) (*report.VerificationSummary, error) {
	if vf.force && !vf.on {
		return nil, cliflag.Errorf("--verify-force goes with --verify")
	}
	if !vf.on {
		return nil, nil
	}
	if target == "" {
		return nil, cliflag.Errorf("--verify checks a --target; the embedded server is tradebench itself, which bench/verify's tests certify in every mode")
	}
	res, err := verifyTarget(ctx, verify.Config{Target: target, Insecure: insecure}, io.Discard)
	if res == nil || err != nil {
		if err == nil {
			err = fmt.Errorf("verify: no result")
		}
		return nil, err
	}
	sum := res.Summary()
	if res.Conformant {
		fmt.Fprintf(os.Stderr, "verify: %s\n", sum.Headline)
		return sum, nil
	}
	res.WriteSummary(os.Stderr)
	if !vf.force {
		return sum, fmt.Errorf("refusing to measure it (--verify-force measures it anyway): %w", res.Err())
	}
	fmt.Fprintln(os.Stderr, "verify: measuring a target that is not conformant (--verify-force); the results say so")
	sum.Forced = true
	return sum, nil
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
