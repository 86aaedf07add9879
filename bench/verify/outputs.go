package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tradebench/tradebench/internal/dsn"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/report/htmlreport"
)

// Outputs are the files a verification is written to besides its summary — the same for a web
// tier's suite and a services host's (bench/verifyservices).
type Outputs struct {
	// JSON is the verification's JSON ("" = none); the HTML report goes beside it
	// (htmlreport.PathFor) unless NoReport.
	JSON     string
	NoReport bool
	// JUnit is the checks as JUnit XML, one suite per level, for CI ("" = none).
	JUnit string
	// Log gets a line per file written (nil: none).
	Log io.Writer
}

// Check refuses, before anything is verified, a file that cannot be written: a *setting.Error
// naming JSON or JUnit.
func (o Outputs) Check() error {
	for _, f := range []struct{ field, path string }{{"JSON", o.JSON}, {"JUnit", o.JUnit}} {
		if f.path != "" {
			if err := report.CheckWritable(f.path); err != nil {
				return &setting.Error{Field: f.field, Err: err}
			}
		}
	}
	return nil
}

// Finish ends a verification that ran (res not nil), whichever suite: the summary on stdout;
// then, unless it was interrupted (err, returned as it is: what was checked is printed, but it
// is no verdict), the files written and the verdict as an error (a *report.NotConformant, or
// nil for a conformant target).
func (o Outputs) Finish(res *report.Verification, err error, stdout io.Writer) error {
	res.WriteSummary(stdout)
	if err != nil {
		return err
	}
	if err := o.write(res); err != nil {
		return err
	}
	return res.Err()
}

func (o Outputs) write(res *report.Verification) error {
	logf := func(format string, args ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format, args...)
		}
	}
	if o.JSON != "" {
		if err := res.WriteFile(o.JSON); err != nil {
			return fmt.Errorf("verification JSON: %w", err)
		}
		logf("results written to %s\n", o.JSON)
		if !o.NoReport {
			html := htmlreport.PathFor(o.JSON)
			if err := htmlreport.WriteFile(html, func(w io.Writer) error { return htmlreport.RenderVerification(w, res) }); err != nil {
				return fmt.Errorf("report: %w", err)
			}
			logf("report written to %s\n", html)
		}
	}
	if o.JUnit != "" {
		f, err := os.Create(o.JUnit)
		if err != nil {
			return fmt.Errorf("JUnit XML: %w", err)
		}
		if err := errors.Join(res.WriteJUnit(f), f.Close()); err != nil {
			return fmt.Errorf("JUnit XML: %w", err)
		}
	}
	return nil
}

// RunNoticed is Run as the verify command makes it: it says first on log what it will create
// (Notice), then a line per check as it completes.
func RunNoticed(ctx context.Context, cfg Config, log io.Writer) (*report.Verification, error) {
	run := NewRun()
	fmt.Fprintf(log, "verify %s: %s\n", dsn.Redact(cfg.Target), Notice(run))
	cfg.Progress = log
	return Run(ctx, cfg, run)
}

// Before is the verification a measurement makes first (drive's and run's --verify): it
// verifies cfg.Target and returns its summary for the results' disclosure. A target that is not
// conformant is refused — the summary and an error wrapping its *report.NotConformant — unless
// force, which measures it anyway with the summary marked Forced. The outcome is said on log.
func Before(ctx context.Context, cfg Config, force bool, log io.Writer) (*report.VerificationSummary, error) {
	res, err := RunNoticed(ctx, cfg, io.Discard)
	if res == nil || err != nil {
		if err == nil {
			err = errors.New("verify: no result")
		}
		return nil, err
	}
	sum := res.Summary()
	if res.Conformant {
		fmt.Fprintf(log, "verify: %s\n", sum.Headline)
		return sum, nil
	}
	res.WriteSummary(log)
	if !force {
		return sum, fmt.Errorf("refusing to measure it: %w", res.Err())
	}
	fmt.Fprintln(log, "verify: measuring a target that is not conformant, as asked; the results say so")
	sum.Forced = true
	return sum, nil
}
