package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/mattn/go-isatty"

	"github.com/tradebench/tradebench/internal/setting"
)

// The command line's small layer over the standard flag package: hidden aliases for renamed
// flags, the one --progress flag, the one terminal test, nested subcommands, and the mapping
// from a component's setting errors to the flags that set them.

// aliasValue is a hidden alias: the Value of the flag it stands for, so setting either sets the
// same variable. printFlags leaves it out of --help and givenFlags reports it by its new name.
type aliasValue struct {
	flag.Value
	name string // the flag it is an alias of
}

// IsBoolFlag lets a boolean flag's alias, like the flag, go without a value.
func (a aliasValue) IsBoolFlag() bool {
	b, ok := a.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// alias accepts each old name in place of the flag name, without listing it in --help. The
// flag must already be defined.
func alias(fs *flag.FlagSet, name string, old ...string) {
	f := fs.Lookup(name)
	if f == nil {
		panic("tradebench: alias of undefined flag --" + name)
	}
	for _, o := range old {
		fs.Var(aliasValue{f.Value, name}, o, "old name of --"+name)
	}
}

// givenFlags returns the flags set on the command line, each by its current name (an alias
// counts as the flag it stands for).
func givenFlags(fs *flag.FlagSet) map[string]bool {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) {
		if a, ok := f.Value.(aliasValue); ok {
			given[a.name] = true
			return
		}
		given[f.Name] = true
	})
	return given
}

// setHelp makes --help print help (the usage line, what the command does, examples, ending in
// "flags:") and then the flags.
func setHelp(fs *flag.FlagSet, help string) {
	fs.Usage = func() { fmt.Fprint(fs.Output(), help); printFlags(fs) }
}

// printFlags is fs.PrintDefaults without the hidden aliases.
func printFlags(fs *flag.FlagSet) {
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

// isTerminal reports whether f is an interactive terminal (where progress is redrawn in place);
// the one test every command uses.
func isTerminal(f *os.File) bool { return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()) }

// progressFlag is --progress: live progress on stderr, auto (redrawn in place on a terminal,
// plain lines otherwise), on or off.
type progressFlag struct{ mode string }

func (p *progressFlag) String() string {
	if p == nil {
		return ""
	}
	return p.mode
}

func (p *progressFlag) Set(s string) error {
	switch s {
	case "auto", "on", "off":
		p.mode = s
		return nil
	}
	return fmt.Errorf("want auto, on or off, got %q", s)
}

// writer returns where progress goes (nil: nowhere) and whether it may redraw in place.
func (p *progressFlag) writer() (w io.Writer, tty bool) {
	switch p.mode {
	case "off":
		return nil, false
	case "on":
		return os.Stderr, false
	}
	return os.Stderr, isTerminal(os.Stderr)
}

// quietValue is the old --quiet, kept as a hidden alias of --progress: --quiet is --progress off.
type quietValue struct{ p *progressFlag }

func (q quietValue) String() string   { return "false" }
func (q quietValue) IsBoolFlag() bool { return true }
func (q quietValue) Set(s string) error {
	quiet, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("want true or false, got %q", s)
	}
	q.p.mode = "auto"
	if quiet {
		q.p.mode = "off"
	}
	return nil
}

// addProgress defines --progress (and the old --quiet as its hidden alias).
func addProgress(fs *flag.FlagSet) *progressFlag {
	p := &progressFlag{mode: "auto"}
	fs.Var(p, "progress", "`mode` of the live progress on stderr: auto (in place on a terminal, a line every few seconds otherwise), on, off")
	fs.Var(aliasValue{quietValue{p}, "progress"}, "quiet", "old name of --progress off")
	return p
}

// subcommand is one verb of a command group such as 'tradebench wstest serve'.
type subcommand struct {
	name string
	run  func(ctx context.Context, args []string) error
}

// runSubcommand runs the subcommand named by args[0], printing usage (the group's help text)
// for help or a missing subcommand.
func runSubcommand(ctx context.Context, args []string, usage string, subs ...subcommand) error {
	names := make([]string, len(subs))
	for i, s := range subs {
		names[i] = s.name
	}
	want := strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage) // as 'tradebench' alone: the usage where errors go, exit 2
		return usageErrorf("missing subcommand (%s)", want)
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Print(usage)
		return nil
	}
	for _, s := range subs {
		if s.name == args[0] {
			return s.run(ctx, args[1:])
		}
	}
	return usageErrorf("unknown subcommand %q (want %s)", args[0], want)
}

// flagNames maps a component's Config fields to the flags that set them.
type flagNames map[string]string

// usageError turns a component's configuration error into a command-line error (exit 2): a
// *setting.Error names the flag that sets the field, when there is one.
func (names flagNames) usageError(err error) error {
	if f, msg, ok := names.flag(err); ok {
		return usageErrorf("%s: %s", dashed(f), msg)
	}
	return usageErrorf("%v", err)
}

// orUsage is usageError for a *setting.Error of a field with a flag, and err unchanged otherwise
// (for errors of a run that may also fail for other reasons).
func (names flagNames) orUsage(err error) error {
	if _, _, ok := names.flag(err); ok {
		return names.usageError(err)
	}
	return err
}

func (names flagNames) flag(err error) (flagName, msg string, ok bool) {
	var se *setting.Error
	if errors.As(err, &se) {
		f, ok := names[se.Field]
		if !ok {
			f, ok = phaseNames[se.Field] // every load command's phases, named once
		}
		if ok {
			return f, se.Err.Error(), true
		}
	}
	return "", "", false
}

// metricsListenFlag registers --metrics-listen, the Prometheus endpoint of every server command;
// the value it returns is the address, checked (a usage error names the flag).
func metricsListenFlag(fs *flag.FlagSet) func() (string, error) {
	addr := fs.String("metrics-listen", "", "serve Prometheus metrics at http://ADDR/metrics on a listener of their own (e.g. 127.0.0.1:9464; bind it where only your monitoring can reach it); empty: no endpoint")
	return func() (string, error) {
		if *addr == "" {
			return "", nil
		}
		_, port, err := net.SplitHostPort(*addr)
		if err == nil {
			_, err = strconv.ParseUint(port, 10, 16)
		}
		if err != nil {
			return "", usageErrorf("--metrics-listen %q: want host:port (e.g. 127.0.0.1:9464, :9464)", *addr)
		}
		return *addr, nil
	}
}
