package main

import (
	"context"
	"errors"
	"flag"

	"github.com/tradebench/tradebench/bench/cacheperfjob"
	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/internal/cliflag"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/trade/audit"
)

// The command line's one way of parsing flags and of ending: every subcommand parses with
// cliflag.Parse, so a mistake is one line on stderr (what is wrong, a did-you-mean from the
// command's own flags, where the help is) and never the whole help; and every command's error
// becomes its exit status through exitCode, the one table (documented in docs/guide.md).

// The exit-code table. The libraries return typed errors; only this table turns them into a
// process's exit status, so every command ends the same way for the same reason.
const (
	exitOK         = 0 // done, and every check passed
	exitInternal   = 1 // the command could not do its work (a server failed, a disk was full…)
	exitUsage      = 2 // a bad command line or bad input (a flag, a file, a database not there)
	exitThresholds = 3 // the run completed but missed a threshold (or a memory ceiling)
	exitAudit      = 4 // the audit found violations in the database
	exitAgentsLost = 5 // a distributed run lost load agents
	exitInvalid    = 6 // a run whose verdict is "invalid": it broke a run rule, its numbers cannot be trusted
	exitNotConform = 7 // verify: the target failed a check, it does not implement the application
	// exitInterrupted is a run stopped by Ctrl-C or SIGTERM (128 + SIGINT, as a shell reports
	// it): the results and the report of what finished are written, verdict "interrupted".
	exitInterrupted = 130
)

// exitCode maps a command's error to its exit status. When errors are joined (a run that missed
// a threshold and whose audit failed), the more specific or serious reason wins: bad input, then
// an interruption, then lost agents, then the audit, then a target that is not conformant, then an
// invalid run, then thresholds. Lost agents and a failed
// audit each make a run invalid too, so they name the cause; an invalid verdict outranks a
// threshold, which was judged on numbers that cannot be trusted.
func exitCode(err error) int {
	var (
		ue   *driver.UsageError
		lost *driver.AgentsLostError
		af   *audit.Failed
		tf   *report.ThresholdsFailed
		ce   *cacheperfjob.CeilingExceeded
		se   *setting.Error
		pf   *driver.PreflightError
		inv  *report.InvalidError
		nc   *report.NotConformant
		intr *driver.InterruptedError
	)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, cliflag.ErrUsage), errors.As(err, &ue), errors.As(err, &se), errors.As(err, &pf):
		// a *setting.Error is a bad value of a configuration field, whoever set it: bad input;
		// a preflight refusal is a target that cannot be driven as configured, found before load
		return exitUsage
	case errors.As(err, &intr), errors.Is(err, context.Canceled):
		// the user stopped it: whatever else the part that ran showed, it is not a finished run
		return exitInterrupted
	case errors.As(err, &lost):
		return exitAgentsLost
	case errors.As(err, &af):
		return exitAudit
	case errors.As(err, &nc):
		// before a run's own failures: a target that is not the application measured nothing
		return exitNotConform
	case errors.As(err, &inv):
		return exitInvalid
	case errors.As(err, &tf), errors.As(err, &ce):
		return exitThresholds
	}
	return exitInternal
}
