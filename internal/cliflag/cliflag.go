// Package cliflag is the command line's small layer over the standard flag package, the same
// for every command: a mistake is one line (what is wrong, a did-you-mean from the command's own
// flags, where the help is) and never the whole help; wrk's joined short flags (-c50) are
// accepted; a bare number given to a duration is told the unit it lacks; renamed flags live on
// as hidden aliases; a component's *setting.Error is reported by the flag that set the field.
//
// It knows no command and no system: the program's name comes in the FlagSet's name, and the
// exit status of an error is the program's to decide (ErrUsage marks the command line's mistakes).
package cliflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tradebench/tradebench/internal/suggest"
)

// ErrUsage marks an error in the command line: every error this package returns wraps it, and
// a program maps it to its usage exit status.
var ErrUsage = errors.New("usage error")

// Errorf reports a command-line mistake (it wraps ErrUsage); the message should name the flag.
func Errorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUsage, fmt.Sprintf(format, args...))
}

// NewFlagSet makes a FlagSet for the command name (as a user types it: "tradebench run") that
// returns its errors instead of exiting and prints usage with a one-line synopsis.
func NewFlagSet(name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s %s\n\nflags:\n", name, synopsis)
		PrintFlags(fs)
	}
	return fs
}

// SetHelp makes --help print help (the usage line, what the command does, examples, ending in
// "flags:") and then the flags.
func SetHelp(fs *flag.FlagSet, help string) {
	fs.Usage = func() { fmt.Fprint(fs.Output(), help); PrintFlags(fs) }
}

// PrintFlags is fs.PrintDefaults without the hidden aliases.
func PrintFlags(fs *flag.FlagSet) {
	shown := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	shown.SetOutput(fs.Output())
	fs.VisitAll(func(f *flag.Flag) {
		if _, hidden := f.Value.(aliasValue); !hidden {
			shown.Var(f.Value, f.Name, f.Usage)
			shown.Lookup(f.Name).DefValue = f.DefValue
		}
	})
	shown.PrintDefaults()
}

// Parse parses args. --help prints the help on stdout (flag.ErrHelp: exit 0); any other
// mistake is a one-line usage error (see flagError), and the help is not printed. Stray
// positional arguments are refused unless allowArgs.
func Parse(fs *flag.FlagSet, args []string, allowArgs bool) error {
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
		return Errorf("unexpected argument %q (flags go before it?); see '%s --help'", fs.Arg(0), fs.Name())
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

// A UnitValue is a flag.Value of its own syntax that takes durations among its forms (a think
// time: 1s, fixed:1s, exp:1s): a bare number given to it gets the duration hint, as a
// time.Duration flag's does, and its other mistakes keep their own message.
type UnitValue interface {
	flag.Value
	NeedsUnit() bool
}

// flagError turns the flag package's error into one line: an unknown flag with the nearest of
// the command's own flags, a number given to a duration with the unit it needs, always ending in
// where the help is.
func flagError(fs *flag.FlagSet, err error) error {
	see := fmt.Sprintf("see '%s --help'", fs.Name())
	msg := err.Error()
	if m := reUndefined.FindStringSubmatch(msg); m != nil {
		if hint := peerHint(fs, m[1]); hint != "" {
			shown := Dashed(m[1])
			if _, whole := peerFlags[m[1]]; !whole {
				shown = "-" + m[1] // a letter with its value joined, as typed: -t2
			}
			return Errorf("unknown flag %s (%s; %s", shown, hint, see)
		}
		if near := nearestFlag(fs, m[1]); near != "" {
			return Errorf("unknown flag %s; did you mean %s? %s", Dashed(m[1]), Dashed(near), see)
		}
		return Errorf("unknown flag %s; %s", Dashed(m[1]), see)
	}
	if m := reInvalid.FindStringSubmatch(msg); m != nil {
		value, name, why := m[1], m[2], m[3]
		f := fs.Lookup(name)
		if a, ok := f.Value.(aliasValue); ok { // an alias: the message names the flag it stands for
			name, f = a.name, fs.Lookup(a.name)
		}
		u, unit := f.Value.(UnitValue)
		if _, bare := strconv.ParseFloat(value, 64); isDurationFlag(f) || unit && u.NeedsUnit() && bare == nil {
			return Errorf("%s", durationHint(name, value, see))
		}
		switch {
		case strings.HasPrefix(msg, "invalid boolean"), strings.HasPrefix(why, "strconv.ParseBool"):
			why = "want true or false"
		case why == "parse error", strings.HasPrefix(why, "strconv.Parse"): // the flag package's and strconv's words
			why = "not a number"
		}
		return Errorf("%s %q: %s; %s", Dashed(name), value, why, see)
	}
	if m := reNoArg.FindStringSubmatch(msg); m != nil {
		return Errorf("%s needs a value; %s", Dashed(m[1]), see)
	}
	return Errorf("%s; %s", msg, see)
}

// A peerFlag is another load tool's flag that users type by habit: what it means there and
// what to give here. It applies only to a command that has the flag the hint names (needs).
type peerFlag struct{ tool, meaning, instead, needs string }

// peerFlags are wrk's, hey's and k6's flags that this command line spells otherwise, by name
// (a one-letter flag also with its value joined, as those tools allow: -t2, -n200).
var peerFlags = map[string]peerFlag{
	"t":           {"wrk", "threads", "it has no counterpart here: each connection (-c) has its own goroutine; leave it out", "c"},
	"threads":     {"wrk", "threads", "it has no counterpart here: each connection (-c) has its own goroutine; leave it out", "c"},
	"connections": {"wrk", "connections", "give -c (--users)", "users"},
	"vus":         {"k6", "virtual users", "give --users (-c)", "users"},
	"n":           {"hey", "request count", "give a duration (-d 30s) or each user's --iterations", "iterations"},
	"z":           {"hey", "duration", "give -d (--duration)", "duration"},
	"q":           {"hey", "per-worker rate", "give --rate, all users' requests per second together", "rate"},
	"rps":         {"hey and vegeta", "requests per second", "give --rate (the open model: requests started per second)", "rate"},
}

// peerHint is the hint for another tool's flag name ("" if it is none, or this command has no
// counterpart to point to): "wrk's threads): it has no counterpart…".
func peerHint(fs *flag.FlagSet, name string) string {
	p, ok := peerFlags[name]
	if !ok && len(name) > 1 && !strings.HasPrefix(name, "-") {
		if _, err := strconv.ParseFloat(name[1:], 64); err == nil { // -t2, -n200
			p, ok = peerFlags[name[:1]]
		}
	}
	if !ok || fs.Lookup(p.needs) == nil {
		return ""
	}
	return p.tool + "'s " + p.meaning + "): " + p.instead
}

// isDurationFlag reports whether f takes a duration: its default prints as one (0s, 2m0s).
func isDurationFlag(f *flag.Flag) bool {
	_, err := time.ParseDuration(f.DefValue)
	return err == nil && f.DefValue != "0" && strings.ContainsAny(f.DefValue, "hms")
}

// durationHint is the message for a bad duration: a bare number gets the unit it lacks.
func durationHint(name, value, see string) string {
	if _, err := strconv.ParseFloat(value, 64); err == nil {
		return fmt.Sprintf("%s %s: a duration needs a unit, e.g. %ss or %sms; %s", Dashed(name), value, value, value, see)
	}
	return fmt.Sprintf("%s %q: not a duration (e.g. 10s, 1m30s, 500ms); %s", Dashed(name), value, see)
}

// Dashed is a flag's name as the help writes it: -c, --users.
func Dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// nearestFlag is the visible flag of fs nearest to name (suggest.Nearest: a few edits away, or
// name a prefix of it), or "" when none is near enough to be what was meant. Hidden aliases and
// one-letter flags are never suggested: the help does not list them.
func nearestFlag(fs *flag.FlagSet, name string) string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) {
		if _, hidden := f.Value.(aliasValue); !hidden && len(f.Name) > 1 {
			names = append(names, f.Name)
		}
	})
	return suggest.Nearest(name, names)
}
