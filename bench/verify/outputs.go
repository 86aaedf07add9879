package verify

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/report/publish"
)

// Outputs are the files a verification is written to besides its summary — the same for a web
// tier's suite and a services host's (bench/verifyservices) — written through report/publish,
// under its overwrite rule.
type Outputs = publish.Verification

// Finish ends a verification that ran (res not nil), whichever suite: the summary on stdout;
// then, unless it was interrupted (err, returned as it is: what was checked is printed, but it
// is no verdict), the files written and the verdict as an error (a *report.NotConformant, or
// nil for a conformant target).
func Finish(o Outputs, res *report.Verification, err error, stdout io.Writer) error {
	res.WriteSummary(stdout)
	if err != nil {
		return err
	}
	if err := o.Write(res); err != nil {
		return err
	}
	return res.Err()
}

// RunNoticed is Run as the verify command makes it: once the target answers, it says on log
// what it will create (Notice), then a line as each level starts.
func RunNoticed(ctx context.Context, cfg Config, log io.Writer) (*report.Verification, error) {
	cfg.Notice, cfg.Progress = log, log
	return Run(ctx, cfg, NewRun())
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
