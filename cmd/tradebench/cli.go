package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tradebench/tradebench/bench/cacheperfjob"
	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/internal/suggest"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/trade/audit"
)

// The command line's one way of parsing flags and of ending: every subcommand parses with
// parseFlags, so a mistake is one line on stderr (what is wrong, a did-you-mean from the
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
	case errors.Is(err, errUsage), errors.As(err, &ue), errors.As(err, &se), errors.As(err, &pf):
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

// newFlagSet makes a FlagSet for a subcommand that returns its errors instead of exiting and
// prints usage with a one-line synopsis.
func newFlagSet(name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet("tradebench "+name, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: tradebench %s %s\n\nflags:\n", name, synopsis)
		printFlags(fs)
	}
	return fs
}

// parseFlags parses args. --help prints the help on stdout (flag.ErrHelp: exit 0); any other
// mistake is a one-line usage error (see flagError), and the help is not printed. Stray
// positional arguments are refused unless allowArgs.
func parseFlags(fs *flag.FlagSet, args []string, allowArgs bool) error {
	args = joinedShortFlags(fs, args)
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {} // the flag package calls it on every error: the help is printed below, on request only
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.Usage = usage
	fs.SetOutput(out)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(os.Stdout)
			fs.Usage()
			fs.SetOutput(out)
			return flag.ErrHelp
		}
		return flagError(fs, err)
	}
	if !allowArgs && fs.NArg() > 0 {
		return usageErrorf("unexpected argument %q (flags go before it?); see '%s --help'", fs.Arg(0), fs.Name())
	}
	return nil
}

// joinedShortFlags accepts wrk's and hey's spelling of a one-letter flag with its value joined
// to it (-c50, -d30s, -HAccept:x): "-c50" becomes "-c=50" when -c is a flag that takes a value
// and -c50 is no flag of its own. Values of other flags are left alone (--body -c50 sends "-c50").
func joinedShortFlags(fs *flag.FlagSet, args []string) []string {
	out := make([]string, 0, len(args))
	takesValue := func(f *flag.Flag) bool {
		b, ok := f.Value.(interface{ IsBoolFlag() bool })
		return !ok || !b.IsBoolFlag()
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		out = append(out, a)
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			if a == "--" {
				out = append(out, args[i+1:]...)
				break
			}
			continue
		}
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil {
			if takesValue(f) && i+1 < len(args) {
				i++
				out = append(out, args[i]) // the flag's value, whatever it looks like
			}
			continue
		}
		if !strings.HasPrefix(a, "--") && len(name) > 1 {
			if f := fs.Lookup(name[:1]); f != nil && takesValue(f) {
				out[len(out)-1] = "-" + name[:1] + "=" + name[1:]
			}
		}
	}
	return out
}

// The flag package's error messages; matched to say the same thing in one line with a hint.
var (
	reUndefined = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	reInvalid   = regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for (?:flag )?-+([^:]+): (.*)$`)
	reNoArg     = regexp.MustCompile(`^flag needs an argument: -+(.*)$`)
)

// flagError turns the flag package's error into one line: an unknown flag with the nearest of
// the command's own flags, a number given to a duration with the unit it needs, always ending in
// where the help is.
func flagError(fs *flag.FlagSet, err error) error {
	see := fmt.Sprintf("see '%s --help'", fs.Name())
	msg := err.Error()
	if m := reUndefined.FindStringSubmatch(msg); m != nil {
		if near := nearestFlag(fs, m[1]); near != "" {
			return usageErrorf("unknown flag %s; did you mean %s? %s", dashed(m[1]), dashed(near), see)
		}
		return usageErrorf("unknown flag %s; %s", dashed(m[1]), see)
	}
	if m := reInvalid.FindStringSubmatch(msg); m != nil {
		value, name, why := m[1], m[2], m[3]
		f := fs.Lookup(name)
		if a, ok := f.Value.(aliasValue); ok { // an alias: the message names the flag it stands for
			name, f = a.name, fs.Lookup(a.name)
		}
		_, think := f.Value.(thinkFlag)
		if _, bare := strconv.ParseFloat(value, 64); isDurationFlag(f) || think && bare == nil {
			return usageErrorf("%s", durationHint(name, value, see))
		}
		switch {
		case strings.HasPrefix(msg, "invalid boolean"), strings.HasPrefix(why, "strconv.ParseBool"):
			why = "want true or false"
		case why == "parse error", strings.HasPrefix(why, "strconv.Parse"): // the flag package's and strconv's words
			why = "not a number"
		}
		return usageErrorf("%s %q: %s; %s", dashed(name), value, why, see)
	}
	if m := reNoArg.FindStringSubmatch(msg); m != nil {
		return usageErrorf("%s needs a value; %s", dashed(m[1]), see)
	}
	return usageErrorf("%s; %s", msg, see)
}

// isDurationFlag reports whether f takes a duration: its default prints as one (0s, 2m0s).
func isDurationFlag(f *flag.Flag) bool {
	_, err := time.ParseDuration(f.DefValue)
	return err == nil && f.DefValue != "0" && strings.ContainsAny(f.DefValue, "hms")
}

// durationHint is the message for a bad duration: a bare number gets the unit it lacks.
func durationHint(name, value, see string) string {
	if _, err := strconv.ParseFloat(value, 64); err == nil {
		return fmt.Sprintf("%s %s: a duration needs a unit, e.g. %ss or %sms; %s", dashed(name), value, value, value, see)
	}
	return fmt.Sprintf("%s %q: not a duration (e.g. 10s, 1m30s, 500ms); %s", dashed(name), value, see)
}

// dashed is a flag's name as written in this kit's help: -c, --users.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// nearestFlag is the visible flag of fs closest to name (by edit distance, or name a prefix of
// it), or "" when none is near enough to be what was meant.
func nearestFlag(fs *flag.FlagSet, name string) string {
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	fs.VisitAll(func(f *flag.Flag) {
		if _, hidden := f.Value.(aliasValue); hidden || len(f.Name) == 1 {
			return
		}
		d := suggest.Distance(name, f.Name)
		if len(name) >= 3 && strings.HasPrefix(f.Name, name) {
			d = min(d, 1)
		}
		cs = append(cs, cand{f.Name, d})
	})
	sort.Slice(cs, func(i, j int) bool { return cs[i].d < cs[j].d || cs[i].d == cs[j].d && cs[i].name < cs[j].name })
	if len(cs) == 0 || cs[0].d > max(2, len(name)/3) {
		return ""
	}
	return cs[0].name
}
